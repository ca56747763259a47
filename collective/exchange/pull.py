"""Exchange through a commons: remotes, push, pull and the shared quarantine branch.

A pull reads each peer's own memories changed since the last pull (a Dolt
diff from a per-peer watermark), verifies their signatures, asks the ANN
index for local candidates, plans the merge (merge.plan) and applies it in
one transaction and one commit. Peer branches are never Dolt-merged into
ours: the merge is ours to decide, row by row.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence
from urllib.parse import urlparse

import numpy as np

from .. import merge, quarantine
from ..judge import cache as analyses
from ..runtime import parallel
from ..errors import BadInput, CollectiveError, NonFastForward, NotFound, RemoteUnreachable, StorageError
from ..runtime.gc_pause import gc_paused
from ..identity import verify_many
from ..model import Memory, iso, utcnow
from ..quarantine import QUARANTINE_BRANCH

PUSH_ATTEMPTS = 4
# hnswlib ef for a pull's candidate search (k = merge.CANDIDATES_PER_MEMORY). Measured on
# 10k clustered 384-d queries over 100k (scripts/bench_merge.py): ef 100 -> 48 halves the
# search and still finds 99.9% of the exact pairs above the floor.
CANDIDATE_EF = 48
# New memories per candidate search: parts small enough to overlap searching with reading rows.
SEARCH_PART = 2000
# Below this many pairs, forking workers for the judge costs more than it saves.
PARALLEL_PAIRS = 2000
REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def validate_remote_url(url: str, engine: str = "doltlite") -> str:
    parsed = urlparse(url)
    if parsed.scheme == "file":
        if parsed.netloc or not parsed.path.startswith("/"):
            raise BadInput("url", f"file remotes need an absolute path: file:///abs/path/commons.db, got {url!r}")
        if not Path(parsed.path).parent.is_dir():
            raise BadInput("url", f"folder {Path(parsed.path).parent} does not exist")
        check_engine(Path(parsed.path), engine)
        return url
    if parsed.scheme in ("http", "https"):
        if not parsed.hostname or not parsed.path.strip("/"):
            raise BadInput("url", f"expected http://host:port/name.db, got {url!r}")
        return url
    raise BadInput("url", f"unsupported remote {url!r} (use file:///abs/path/commons.db or http://host:port/name.db)")


def check_engine(path: Path, engine: str) -> None:
    """doltlite keeps a commons in one file, Dolt in a folder: they cannot share one."""
    if engine == "doltlite" and path.is_dir():
        raise BadInput("remote", f"{path} is a Dolt remote folder; a doltlite agent needs a doltlite commons file")
    if engine == "dolt" and path.is_file():
        with open(path, "rb") as f:
            kind = "a doltlite commons" if f.read(4) == b"CTLD" else "a file, not a Dolt remote folder"
        raise BadInput("remote", f"{path} is {kind}; a Dolt agent needs a Dolt remote (a folder or remotesapi URL)")


def check_file_remote(agent, remote: str, *, must_exist: bool) -> None:
    """A file commons of the other engine, or none yet to fetch from, is said before Dolt is asked."""
    parsed = urlparse(agent.repo.remotes().get(remote, ""))
    if parsed.scheme != "file":
        return
    path = Path(parsed.path)
    # The first push creates a commons (Dolt makes an empty folder when the remote is added).
    if must_exist and (not path.exists() or (path.is_dir() and not any(path.iterdir()))):
        raise RemoteUnreachable(f"remote {remote!r} is unreachable: no commons at {path} yet")
    check_engine(path, agent.location.engine)


def add_remote(agent, name: str, url: str) -> dict:
    if not REMOTE_NAME.fullmatch(name or ""):
        raise BadInput("name", f"{name!r} is not a valid remote name")
    url = validate_remote_url(url, agent.location.engine)
    if name in agent.repo.remotes():
        raise BadInput("name", f"remote {name!r} exists already")
    agent.repo.add_remote(name, url)
    return {"name": name, "url": url}


def resolve_remote(agent, name: str | None) -> str:
    remotes = agent.repo.remotes()
    chosen = name or agent.home.setting("CMEM_REMOTE", "remote")
    if not chosen:
        if len(remotes) == 1:
            return next(iter(remotes))
        if not remotes:
            raise BadInput("remote", "no remote configured; run `cmem remote add NAME URL`")
        raise BadInput("remote", f"several remotes ({', '.join(sorted(remotes))}); name one")
    if chosen not in remotes:
        raise NotFound("remote", f"no remote named {chosen!r}")
    return chosen


def fetch(agent, remote: str) -> dict[str, str]:
    """Fetch every branch of the commons; returns branch -> head."""
    check_file_remote(agent, remote, must_exist=True)
    try:
        return agent.repo.fetch(remote)
    except RemoteUnreachable as e:
        raise RemoteUnreachable(f"remote {remote!r} is unreachable: {e}") from e
    except StorageError as e:
        text = str(e).lower()
        if "not a database" in text:
            raise BadInput("remote", f"{remote!r} is not a commons database") from e
        if "http/1.1 header" in text or "remote request failed" in text:
            # each engine reached the other's server: doltlite speaks plain HTTP, Dolt gRPC
            raise BadInput("remote", f"{remote!r} is not a {agent.location.engine} commons "
                                     "(doltlite and Dolt agents cannot share a commons)") from e
        raise


# --- pull ----------------------------------------------------------------------

@dataclass
class PeerReport:
    peer: str
    head: str
    status: str = "merged"  # merged, unchanged, refused, planned
    commit: str | None = None
    summary: dict = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    pairs: list[dict] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"peer": self.peer, "head": self.head, "status": self.status, "commit": self.commit,
                "summary": self.summary, "refused": self.refused, "pairs": self.pairs,
                "seconds": {k: round(v, 4) for k, v in self.seconds.items()}}


def pull(agent, remote: str | None = None, *, peers: Sequence[str] = (), dry_run: bool = False,
         comparator: merge.Comparator | None = None) -> dict:
    remote = resolve_remote(agent, remote)
    with gc_paused():
        started = time.perf_counter()
        heads = fetch(agent, remote)
        fetch_s = time.perf_counter() - started
        own = agent.branch
        available = {b[: -len("/working")]: h for b, h in heads.items() if b.endswith("/working") and b != own}
        for peer in peers:
            if peer not in available:
                raise NotFound("peer", f"no branch {peer}/working on remote {remote!r}")
        chosen = sorted(peers) if peers else sorted(available)
        comparator = comparator or agent.comparator()
        reports = []
        if not dry_run:
            import_cases(agent, remote)
        for peer in chosen:
            report = pull_peer(agent, remote, peer, available[peer], dry_run=dry_run, comparator=comparator)
            report.seconds["fetch"] = fetch_s
            reports.append(report)
        shared = None
        if not dry_run:
            shared = share_cases(agent, remote)
    return {"remote": remote, "dry_run": dry_run, "peers": [r.to_dict() for r in reports], "quarantine": shared}


def pull_peer(agent, remote: str, peer: str, head: str, *, dry_run: bool,
              comparator: merge.Comparator) -> PeerReport:
    repo = agent.repo
    ref = f"{remote}/{peer}/working"
    report = PeerReport(peer, head)
    theirs = repo.select("agents", {"agent_id": peer}, as_of=ref)
    if not theirs:
        report.status, report.refused = "refused", {"no_agent_row": 1}
        return report
    peer_key = theirs[0]["public_key"]
    ours = repo.select("agents", {"agent_id": peer})
    pinned = ours[0] if ours else None
    if pinned is not None and pinned["public_key"] != peer_key:
        report.status, report.refused = "refused", {"key_changed": 1}
        return report
    watermark = pinned["last_synced_commit"] if pinned else None
    if watermark == head:
        report.status = "unchanged"
        return report

    clock = time.perf_counter()
    rows = _changed_rows(repo, watermark, head)
    report.seconds["diff"] = time.perf_counter() - clock

    clock = time.perf_counter()
    keys = {r["agent_id"]: r["public_key"] for r in repo.select("agents", columns=("agent_id", "public_key"))}
    memories = [Memory.from_row(row) for row in rows]
    for memory in memories:
        if memory.origin_agent != peer and memory.origin_agent not in keys:
            # a copy P holds of someone else's memory, whose origin we have not met yet:
            # its key as published on the commons
            keys[memory.origin_agent] = _published_key(repo, remote, memory.origin_agent)
    signer = [peer_key if m.origin_agent == peer else keys[m.origin_agent] for m in memories]
    checks = [(key, m.claim(), m.signature) for m, key in zip(memories, signer) if key]
    with ThreadPoolExecutor(1) as background:
        # OpenSSL releases the GIL: the signatures are checked while this thread finds the
        # candidates; only memories that pass are planned.
        verifying = background.submit(_timed, verify_many, checks)
        own = [m for m in memories if m.origin_agent == peer]
        held = {r["id"]: Memory.from_row(r) for r in repo.select_in("memories", "id", [m.id for m in own])}
        candidates = _candidates(agent, [m for m in own if m.id not in held], comparator.candidate_floor)
        judge = getattr(comparator, "judge", None)
        local_texts = {c.content for hits in candidates.values() for c, _ in hits}
        missing = analyses.recall(repo, judge, local_texts)
        already_read = local_texts.difference(missing)
        valid, report.seconds["verify"] = verifying.result()
    valid_of = iter(valid)
    incoming: list[Memory] = []
    refused = {"forged_origin": 0, "bad_signature": 0}
    relayed = 0
    for memory, key in zip(memories, signer):
        ok = bool(key) and next(valid_of)
        if memory.origin_agent != peer:
            # We take a relayed copy from its origin; one that claims an origin
            # without that origin's signature is forged.
            if ok:
                relayed += 1
            else:
                refused["forged_origin"] += 1
        elif not ok:
            refused["bad_signature"] += 1
        else:
            incoming.append(memory)
    report.refused = {k: v for k, v in refused.items() if v}
    planned, ctx, read = plan_pull(agent, peer, head, incoming, held, candidates, comparator, unread=set(missing))
    report.seconds["classify"] = time.perf_counter() - clock  # verify ran beside it
    report.summary = {**planned.summary(), "relayed_skipped": relayed}
    if dry_run:
        report.pairs = [p.to_dict() for p in planned.pairs]
        report.status = "planned"
        return report

    clock = time.perf_counter()
    now = iso(ctx.now)
    watermark_row = {
        "agent_id": peer, "display_name": theirs[0]["display_name"], "public_key": peer_key,
        "trust_score": pinned["trust_score"] if pinned else 0.5, "branch_name": f"{peer}/working",
        "model_version": theirs[0]["model_version"], "last_synced_commit": head, "last_sync": now,
        "capabilities": theirs[0]["capabilities"], "created_at": pinned["created_at"] if pinned else now}
    s = planned.counts
    message = (f"pull {peer} at {head[:12]}: {len(planned.inserts)} new ({s['constructive']} constructive, "
               f"{s['partial']} partial, {s['destructive']} destructive, {s['independent']} independent), "
               f"{s['updated']} updated, {s['retracted']} retracted")
    with repo.transaction():
        merge.apply(repo, planned, watermark=watermark_row)
        analyses.keep(repo, judge, read - already_read)
        with ThreadPoolExecutor(1) as background:
            # the engine commits outside the GIL (seconds after a big pull): the report is written meanwhile
            committing = background.submit(repo.commit, message, author=agent.agent_id)
            report.pairs = [p.to_dict() for p in planned.pairs]
            report.commit = committing.result()
    agent.after_commit()
    report.seconds["apply"] = time.perf_counter() - clock
    return report


def plan_pull(agent, peer: str, head: str, incoming: Sequence[Memory], held: dict[str, Memory],
              candidates: dict[str, list[tuple[Memory, float]]], comparator: merge.Comparator, *,
              unread: set[str]) -> tuple[merge.MergePlan, merge.MergeContext, set[str]]:
    """Judge every new memory's candidate pairs (on every core) and plan the merge.
    `unread`: local texts the judge has no analysis of yet (the incoming ones are added);
    returns the plan, its context and the texts of those the judging read, for keeping."""
    ctx = merge.MergeContext(receiver=agent.agent_id, trust=agent.trust_scores(),
                             known_cases={c["id"]: c for c in agent.repo.select("quarantine")},
                             settings=agent.settings, now=utcnow())
    fresh = [m for m in incoming if m.id not in held]
    pairs = [(c, m, s) for m in fresh for c, s in merge.judged_candidates(m, candidates, comparator.candidate_floor)]
    unread = unread | {m.content for m in fresh}
    with _judging(comparator, pairs, unread=unread) as (verdicts, pending):
        # the plan starts on this process's share while the workers finish theirs
        planned = merge.plan(peer, head, incoming, held, candidates, merge.Decided(comparator, verdicts, pending), ctx)
        for _ in pending:  # every worker's analyses, for keeping, even if the plan needed none of its verdicts
            pass
    return planned, ctx, {t for local, remote, _ in pairs for t in (local.content, remote.content)} & unread


@contextlib.contextmanager
def _judging(comparator: merge.Comparator, pairs: Sequence[tuple[Memory, Memory, float]], *, unread: set[str]):
    """Judge (local, remote, similarity) pairs on every core: yields this process's verdicts,
    by (local id, remote id), and an iterator over each worker's as it finishes.

    The pairs are cut into contiguous runs, the first judged here. Each worker also
    sends back its judge's analyses of the `unread` texts it met, so this process
    can keep them without reading those texts again.
    """
    judge = getattr(comparator, "judge", None)
    keeping = analyses.keeps(judge)

    def work(chunk: Sequence) -> tuple[list[merge.PairVerdict], dict[str, bytes]]:
        verdicts = [comparator.relate(local, remote, s) for local, remote, s in chunk]
        made = {}
        if keeping and os.getpid() != parent:  # a worker's analyses die with it unless sent
            met = {t for local, remote, _ in chunk for t in (local.content, remote.content)} & unread
            made = {t: judge.analysis_bytes(t) for t in met}
        return verdicts, made

    def by_pair(chunk: Sequence, verdicts: list[merge.PairVerdict]) -> dict[tuple[str, str], merge.PairVerdict]:
        return {(local.id, remote.id): v for (local, remote, _), v in zip(chunk, verdicts)}

    def theirs(forked: parallel.Forked, chunks: Sequence[Sequence]):
        for chunk, (verdicts, made) in zip(chunks, forked.results()):
            for text, blob in made.items():
                judge.remember(text, blob)
            yield by_pair(chunk, verdicts)

    parent = os.getpid()
    forking = len(pairs) >= PARALLEL_PAIRS and getattr(comparator, "fork_safe", False)
    chunks = parallel.split(pairs, parallel.workers() if forking else 1) or [[]]
    try:
        forked = parallel.Forked(work, chunks[1:])
    except OSError:  # no process to spare (memory, limits): judge everything here
        chunks, forked = [pairs], parallel.Forked(work, [])
    with forked:
        yield by_pair(chunks[0], work(chunks[0])[0]), theirs(forked, chunks[1:])


def _timed(fn, *args):
    clock = time.perf_counter()
    return fn(*args), time.perf_counter() - clock


def _published_key(repo, remote: str, agent_id: str) -> str | None:
    """An agent's public key from its own branch on the commons, if it has one there."""
    ref = f"{remote}/{agent_id}/working"
    if ref not in repo.remote_branches():
        return None
    rows = repo.select("agents", {"agent_id": agent_id}, columns=("public_key",), as_of=ref)
    return rows[0]["public_key"] if rows else None


def _changed_rows(repo, watermark: str | None, head: str) -> list[dict]:
    """The peer branch's memory rows changed since the watermark (all rows the first time)."""
    if watermark:
        try:
            return [c.new for c in repo.diff(watermark, head, "memories") if c.new is not None]
        except (StorageError, NotFound):
            pass  # the watermark commit is gone (gc, force push): read everything
    return repo.select("memories", as_of=head)


def _candidates(agent, fresh: Sequence[Memory], floor: float) -> dict[str, list[tuple[Memory, float]]]:
    """Local neighbours of each new memory, from the ANN index, at or above the floor."""
    usable = [m for m in fresh if m.dim == agent.dim and m.model_version == agent.embedder_version]
    if not usable:
        return {}
    index = agent.index()
    vectors = np.stack([m.vector for m in usable])
    parts = parallel.split(range(len(usable)), max(1, len(usable) // SEARCH_PART))
    rows: dict[str, Memory] = {}
    out: dict[str, list[tuple[Memory, float]]] = {}
    with ThreadPoolExecutor(1) as searcher:
        # hnswlib releases the GIL: the next part is searched while this thread reads the rows
        # the last part found
        searches = [searcher.submit(index.search_many, vectors[p.start:p.stop], merge.CANDIDATES_PER_MEMORY,
                                    ef=CANDIDATE_EF) for p in parts]
        for part, search in zip(parts, searches):
            found = search.result()
            wanted = sorted({mid for hits in found for mid, s in hits if s >= floor and mid not in rows})
            rows.update((r["id"], Memory.from_row(r)) for r in agent.repo.select_in("memories", "id", wanted))
            for memory, hits in zip(usable[part.start:part.stop], found):
                chosen = [rows[mid] for mid, s in hits if s >= floor and mid in rows]
                if chosen:
                    # the exact cosine from the stored vectors (the index's is float32 and approximate)
                    sims = np.stack([c.vector for c in chosen]) @ memory.vector
                    out[memory.id] = list(zip(chosen, sims.tolist()))
    return out


# --- push ----------------------------------------------------------------------

def push(agent, remote: str | None = None) -> dict:
    remote = resolve_remote(agent, remote)
    check_file_remote(agent, remote, must_exist=False)
    branch = agent.branch
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        try:
            agent.repo.push(remote, branch)
            break
        except NonFastForward:
            if attempt == PUSH_ATTEMPTS:
                raise CollectiveError(f"push of {branch} to {remote} still not a fast-forward after "
                                      f"{PUSH_ATTEMPTS} attempts; someone else writes this branch") from None
            _catch_up(agent, remote, branch)
        except RemoteUnreachable as e:
            raise RemoteUnreachable(f"remote {remote!r} is unreachable: {e}") from e
        except StorageError as e:  # as fetch() does: a file that is no database is bad input
            if "not a database" in str(e).lower():
                raise BadInput("remote", f"{remote!r} is not a commons database") from e
            raise
    shared = share_cases(agent, remote)
    return {"remote": remote, "branch": branch, "head": agent.repo.head(branch), "quarantine": shared}


def _catch_up(agent, remote: str, branch: str) -> None:
    """Our own branch moved on the commons (the agent ran elsewhere): merge it, keep ours on a clash."""
    fetch(agent, remote)
    repo = agent.repo
    with repo.transaction():
        conflicts = repo.merge(f"{remote}/{branch}", message=f"merge {remote}/{branch}", author=agent.agent_id)
        for table in sorted({c.table for c in conflicts}):
            repo.resolve_conflicts(table, "ours")
        if conflicts:
            repo.commit(f"merge {remote}/{branch} (kept ours on {len(conflicts)} conflicts)", author=agent.agent_id)


# --- the shared quarantine branch ------------------------------------------------

def import_cases(agent, remote: str) -> int:
    """Take the commons' view of the cases into our working branch (one commit if anything changed)."""
    repo = agent.repo
    remote_ref = f"{remote}/{QUARANTINE_BRANCH}"
    if remote_ref not in repo.remote_branches():
        return 0
    theirs = repo.select("quarantine", as_of=remote_ref)
    ours = {c["id"]: c for c in repo.select("quarantine")}
    merged = quarantine.union(list(ours.values()), theirs)
    changed = [c for cid, c in merged.items()
               if cid not in ours or quarantine.normalise(c) != quarantine.normalise(ours[cid])]
    if not changed:
        return 0
    # The disputed memories stay on the quarantine branch until a pull brings them
    # from their origins: taking them here would skip their classification.
    with repo.transaction():
        repo.upsert("quarantine", changed, key=["id"])
        for case in changed:
            before = ours.get(case["id"])
            if case["status"] == "resolved" and (before is None or before["status"] != "resolved"):
                agent.apply_resolution_effects(case)
        repo.commit(f"quarantine: take {len(changed)} case(s) from {remote}", author=agent.agent_id)
    agent.after_commit()
    return len(changed)


def share_cases(agent, remote: str) -> dict:
    """Publish our cases and their disputed pairs on collective/quarantine, at once.

    The branch is rebuilt on top of the commons' head each time (union of the
    cases, larger dispute counts win), so concurrent pushes from agents with
    unrelated histories converge; a race retries.
    """
    repo = agent.repo
    cases = repo.select("quarantine")
    if not cases and f"{remote}/{QUARANTINE_BRANCH}" not in repo.remote_branches():
        return {"pushed": False, "cases": 0}
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        remote_ref = f"{remote}/{QUARANTINE_BRANCH}"
        base = remote_ref if remote_ref in repo.remote_branches() else "main"
        repo.create_branch_at(QUARANTINE_BRANCH, base)
        theirs = {c["id"]: c for c in repo.select("quarantine", as_of=QUARANTINE_BRANCH)}
        merged = quarantine.union(list(theirs.values()), cases)
        changed = [c for cid, c in merged.items()
                   if cid not in theirs or quarantine.normalise(c) != quarantine.normalise(theirs[cid])]
        if changed:
            ids = sorted({m for c in changed for m in (c["memory_id_a"], c["memory_id_b"])})
            pair_rows = repo.select_in("memories", "id", ids)
            with repo.on_branch(QUARANTINE_BRANCH):
                with repo.transaction():
                    repo.upsert("quarantine", changed, key=["id"])
                    repo.upsert("memories", pair_rows, key=["id"])
                    repo.commit(f"quarantine: {agent.agent_id} shares {len(changed)} case(s)", author=agent.agent_id)
        if base == remote_ref and not changed:
            return {"pushed": False, "cases": len(merged)}
        try:
            repo.push(remote, QUARANTINE_BRANCH)
            return {"pushed": True, "cases": len(merged), "changed": len(changed)}
        except NonFastForward:
            fetch(agent, remote)  # someone pushed in between: rebuild on their head
    raise CollectiveError(f"could not push {QUARANTINE_BRANCH} to {remote} after {PUSH_ATTEMPTS} attempts")


def parse_resolution(case: dict) -> dict | None:
    return json.loads(case["resolution"]) if case.get("resolution") else None
