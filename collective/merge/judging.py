"""Judging a pull's pairs on every core, then planning the merge.

The rule judge is Python through and through, so a big pull's pairs are cut
into contiguous runs judged in forked workers (runtime.parallel.Forked); the
plan starts on this process's share while the workers finish theirs. Each
worker also sends back its judge's analyses of the texts it read for the
first time, so they are kept without reading those texts again.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator, Mapping, Sequence

from ..judge import cache as kept_analyses
from ..model import Memory
from ..runtime import parallel
from ..runtime.progress import Progress
from .candidates import judged_candidates
from .comparators import Comparator, Decided, PairVerdict
from .plan import MergeContext, MergePlan, plan

# Below this many pairs, forking workers for the judge costs more than it saves.
PARALLEL_PAIRS = 2000

Pair = tuple[Memory, Memory, float]  # local, remote, similarity
Verdicts = dict[tuple[str, str], PairVerdict]  # by (local id, remote id)


def plan_pull(peer: str, head: str, incoming: Sequence[Memory], held: Mapping[str, Memory],
              candidates: Mapping[str, Sequence[tuple[Memory, float]]],
              comparator: Comparator, ctx: MergeContext, *, unread: set[str],
              progress: Progress | None = None) -> tuple[MergePlan, set[str]]:
    """Judge every new memory's candidate pairs (on every core) and plan the merge.
    `unread`: local texts the judge has no analysis of yet (the incoming ones are added);
    returns the plan and the texts of those the judging read, for keeping."""
    fresh = [m for m in incoming if m.id not in held]
    pairs = [(c, m, s) for m in fresh for c, s in judged_candidates(m, candidates, comparator.candidate_floor)]
    unread = unread | {m.content for m in fresh}
    with judging(comparator, pairs, unread=unread, progress=progress) as (verdicts, pending):
        planned = plan(peer, head, incoming, held, candidates, Decided(comparator, verdicts, pending), ctx)
        for _ in pending:  # every worker's analyses, for keeping, even if the plan needed none of its verdicts
            pass
    return planned, {t for local, remote, _ in pairs for t in (local.content, remote.content)} & unread


@contextlib.contextmanager
def judging(comparator: Comparator, pairs: Sequence[Pair], *, unread: set[str],
            progress: Progress | None = None) -> Iterator[tuple[Verdicts, Iterator[Verdicts]]]:
    """Judge pairs on every core: yields this process's verdicts and an iterator over
    each worker's as it finishes. The pairs are cut into contiguous runs, the first
    judged here."""
    judge = getattr(comparator, "judge", None)
    keeping = kept_analyses.keeps(judge)
    parent = os.getpid()
    done = 0

    def work(chunk: Sequence[Pair]) -> tuple[list[PairVerdict], dict[str, bytes]]:
        many = getattr(comparator, "relate_many", None)
        verdicts = many(chunk) if many else [comparator.relate(local, remote, s) for local, remote, s in chunk]
        made = {}
        if keeping and os.getpid() != parent:  # a worker's analyses die with it unless sent
            met = {t for local, remote, _ in chunk for t in (local.content, remote.content)} & unread
            made = {t: judge.analysis_bytes(t) for t in met}
        return verdicts, made

    def by_pair(chunk: Sequence[Pair], verdicts: list[PairVerdict]) -> Verdicts:
        nonlocal done
        done += len(chunk)
        if progress:
            progress("judge", done, len(pairs))
        return {(local.id, remote.id): v for (local, remote, _), v in zip(chunk, verdicts)}

    def theirs(forked: parallel.Forked, chunks: Sequence[Sequence[Pair]]) -> Iterator[Verdicts]:
        for chunk, (verdicts, made) in zip(chunks, forked.results()):
            for text, blob in made.items():
                judge.remember(text, blob)
            yield by_pair(chunk, verdicts)

    forking = len(pairs) >= PARALLEL_PAIRS and getattr(comparator, "fork_safe", False)
    chunks = parallel.split(pairs, parallel.workers() if forking else 1) or [[]]
    try:
        forked = parallel.Forked(work, chunks[1:])
    except OSError:  # no process to spare (memory, limits): judge everything here
        chunks, forked = [pairs], parallel.Forked(work, [])
    with forked:
        yield by_pair(chunks[0], work(chunks[0])[0]), theirs(forked, chunks[1:])
