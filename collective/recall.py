"""Recall: the memories that resonate most with a query, and how often each came back.

`score = cos^2 * amplitude * trust(origin) * recency * boost(access count)`
(core.scoring). Recall never commits: access counts go to the unversioned
local_access table, buffered.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from .config import Settings
from .core import scoring
from .errors import BadInput, NotFound
from .index.hnsw import EF_SEARCH
from .index.keeper import IndexKeeper
from .model.refs import MAIN_BRANCH
from .model import Memory, blob_to_vector, iso, parse_time, utcnow, validate_count
from .store.dream_tables import CoAccessCounts
from .store.tables import AccessCounts, Tables

MAX_K = 10_000  # more than a person or a prompt reads; the ANN index allocates k slots per query

if TYPE_CHECKING:
    from .store.port import Repository

OVERFETCH = 3
ACCESS_FLUSH_SECONDS = 2.0  # buffered access counts reach the database at least this often, and on close

Scored = tuple[float, float, float, int, str]  # score, similarity, strength, access count, memory id


@dataclass
class RecallHit:
    memory: Memory
    score: float
    similarity: float
    strength: float
    access_count: int = 0

    def to_dict(self) -> dict:
        return {"id": self.memory.id, "score": round(self.score, 6), "similarity": round(self.similarity, 6),
                "strength": round(self.strength, 6), "access_count": self.access_count,
                "disputed": self.memory.disputed, "refuted_by": self.memory.refuted_by,
                "valid_until": self.memory.valid_until, "summary": self.memory.summary,
                "content": self.memory.content, "category": self.memory.category,
                "origin_agent": self.memory.origin_agent, "amplitude": round(self.memory.amplitude, 6),
                "created_at": self.memory.created_at}


class AccessCounter:
    """Hebbian counters, buffered: a recall waits for no fsync, and the counts are
    written in one transaction every ACCESS_FLUSH_SECONDS and on close (a crash loses
    at most those seconds of counts). Other processes' counts are re-read as often.

    It also counts co-access: each memory a recall returns with k - 1 others earns the
    bonus 1 + 0.02 (k - 1), multiplied up in local_coaccess for the next dream to fold."""

    def __init__(self, repo: Repository, table: AccessCounts, *, clock: Callable[[], float] = time.monotonic):
        self.repo = repo
        self.table = table
        self.coaccess = CoAccessCounts(repo)
        self.clock = clock
        self.pending: dict[str, int] = {}
        self.pending_coaccess: dict[str, tuple[int, float]] = {}
        self._stamp = ""
        self._flushed = clock()
        self._known: dict[str, int] | None = None  # local_access as last read
        self._read_at = 0.0

    def counts(self) -> dict[str, int]:
        """The counts in local_access, re-read at most every ACCESS_FLUSH_SECONDS (this
        process's pending ones are added by callers)."""
        if self._known is None or self.clock() - self._read_at >= ACCESS_FLUSH_SECONDS:
            self._known = self.table.all()
            self._read_at = self.clock()
        return self._known

    def count_of(self, memory_id: str) -> int:
        return self.table.of([memory_id]).get(memory_id, 0) + self.pending.get(memory_id, 0)

    def most(self) -> int:
        """An upper bound of any memory's access count."""
        return max(self.counts().values(), default=0) + max(self.pending.values(), default=0)

    def record(self, ids: Sequence[str], now: datetime) -> None:
        for memory_id in ids:
            self.pending[memory_id] = self.pending.get(memory_id, 0) + 1
        if len(ids) > 1:
            bonus = scoring.coaccess_bonus(len(ids))
            for memory_id in ids:
                n, factor = self.pending_coaccess.get(memory_id, (0, 1.0))
                self.pending_coaccess[memory_id] = (n + 1, factor * bonus)
        self._stamp = iso(now)
        if self.clock() - self._flushed >= ACCESS_FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the buffered counts (added to what other processes wrote meanwhile)."""
        pending, self.pending = self.pending, {}
        together, self.pending_coaccess = self.pending_coaccess, {}
        self._flushed = self.clock()
        if not pending:
            return
        with self.repo.transaction():
            existing = self.table.of(list(pending))
            written = {i: existing.get(i, 0) + n for i, n in pending.items()}
            self.table.write(written, at=self._stamp)
            known = self.coaccess.of(list(together))
            self.coaccess.write({i: (known.get(i, (0, 1.0))[0] + n, known.get(i, (0, 1.0))[1] * f)
                                 for i, (n, f) in together.items()}, at=self._stamp)
        if self._known is not None:
            self._known.update(written)


class Recall:
    def __init__(self, repo: Repository, tables: Tables, keeper: IndexKeeper, access: AccessCounter, *,
                 branch: str, settings: Settings, trust_scores: Callable[..., dict[str, float]]):
        self.repo = repo
        self.tables = tables
        self.keeper = keeper
        self.access = access
        self.branch = branch
        self.settings = settings
        self.trust_scores = trust_scores

    def recall(self, query_vector: np.ndarray, *, k: int, as_of: str | None = None, include_faded: bool = False,
               include_refuted: bool = False, now: datetime | None = None, consensus: bool = False) -> list[RecallHit]:
        """Memories ranked by score, best first; `as_of` recalls what the agent believed then,
        `consensus` only what is on main (scored with the trust of now). Memories less similar
        to the query than the relevance floor are not about it: left out."""
        k = validate_count(k, "k", maximum=MAX_K)
        now = now or utcnow()
        if consensus:
            if as_of is not None:
                raise BadInput("consensus", "recalls main as it is now: it cannot be combined with --as-of")
            return self._recall_as_of(query_vector, k, self.repo.head(MAIN_BRANCH), include_faded, include_refuted,
                                      now, trust_of_then=False)
        if as_of is not None:
            return self._recall_as_of(query_vector, k, self.resolve_as_of(as_of), include_faded, include_refuted, now)
        hits = self._hits(self._search(query_vector, k, include_faded, include_refuted, now))
        if hits:
            self.access.record([h.memory.id for h in hits], now)
        return hits

    def _search(self, query_vector: np.ndarray, k: int, include_faded: bool, include_refuted: bool,
                now: datetime) -> list[Scored]:
        """The exact top k from the index: the search widens until nothing it has not
        returned yet can beat the k-th score. One strong memory among many alike can widen it
        to the whole index; the index then scans its vectors rather than walk its graph."""
        index = self.keeper.current()
        boost_bound = float(scoring.boost(np.array(self.access.most())))
        trust_scores = self.trust_scores()
        want = max(k * OVERFETCH, EF_SEARCH)  # the index searches EF_SEARCH deep anyway
        seen = np.zeros(index.label_count, dtype=bool)
        scored: list[Scored] = []
        while True:
            labels, sims = index.search_labels(query_vector, want)
            last = float(sims[-1]) if len(sims) else 0.0
            fresh = ~seen[labels]
            seen[labels] = True
            if not include_refuted:
                fresh &= ~index.refuted_at(labels)
            labels, sims = labels[fresh], sims[fresh]
            # the index keeps what the score needs (amplitude, origin, age, category): no row is read
            strength = index.strengths_at(labels, trust_scores, now.timestamp(), self.settings.half_lives)
            # Only candidates whose bound (cos^2 * strength * largest boost) can beat the k-th
            # score so far have their access counts read.
            bounds = np.maximum(sims, 0.0) ** 2 * strength * boost_bound
            kth = scored[k - 1][0] if len(scored) >= k else -1.0
            chosen = np.flatnonzero(bounds >= kth)
            scored = sorted(scored + self._score(index.ids_of(labels[chosen]), sims[chosen], strength[chosen],
                                                 include_faded), key=lambda s: s[0], reverse=True)[:k]
            # What the index has not returned yet is at most as similar as its last candidate.
            bound = max(last, 0.0) ** 2 * index.max_amplitude * boost_bound
            # nothing unseen passes the relevance floor, or nothing unseen can beat the k-th score
            beaten = len(scored) >= k and scored[k - 1][0] >= bound
            if want >= len(index) or last < self.settings.recall_floor or beaten:
                return scored[:k]
            want *= 4

    def _recall_as_of(self, query_vector: np.ndarray, k: int, commit: str, include_faded: bool,
                      include_refuted: bool, now: datetime, *, trust_of_then: bool = True) -> list[RecallHit]:
        """Brute force over the memories as they were at `commit`, scored with the trust of
        then (or of now; a memory refuted later is not refuted then)."""
        dim = int(query_vector.shape[0])
        rows = {r["id"]: r for r in self.tables.memories.rows(as_of=commit)
                if not r["retracted"] and r["absorbed_into"] is None and r["dim"] == dim
                and (include_refuted or not r.get("refuted_by"))}
        if not rows:
            return []
        ids = list(rows)
        sims = np.stack([blob_to_vector(rows[i]["vector"]) for i in ids]) @ query_vector
        trust = self.trust_scores(as_of=commit) if trust_of_then else self.trust_scores()
        strength = scoring.row_strengths([rows[i] for i in ids], trust, now.timestamp(),
                                         self.settings.half_lives)
        return self._hits(self._score(ids, sims, strength, include_faded)[:k], rows=rows)

    def _score(self, ids: Sequence[str], sims: np.ndarray, strengths: np.ndarray, include_faded: bool
               ) -> list[Scored]:
        """Best first; faded memories left out unless asked for, and those below the relevance floor."""
        known, pending = self.access.counts(), self.access.pending
        counts = np.array([known.get(mid, 0) + pending.get(mid, 0) for mid in ids], dtype=np.int64)
        scores = scoring.scores(sims, strengths, counts)
        floor = self.settings.recall_floor
        order = [int(i) for i in np.argsort(-scores, kind="stable")
                 if (include_faded or strengths[i] >= self.settings.fade_threshold) and sims[i] >= floor]
        return [(float(scores[i]), float(sims[i]), float(strengths[i]), int(counts[i]), ids[i]) for i in order]

    def _hits(self, scored: list[Scored], *, rows: Mapping[str, dict] | None = None) -> list[RecallHit]:
        """Whole memories for the chosen few (scoring needed only the index's columns)."""
        if rows is None:
            rows = {r["id"]: r for r in self.tables.memories.rows_by_id([s[4] for s in scored])}
        return [RecallHit(Memory.from_row(rows[mid]), score, similarity, strength, n)
                for score, similarity, strength, n, mid in scored]

    def resolve_as_of(self, ref: str) -> str:
        """A commit, branch, tag or timestamp -> a commit hash on this agent's history."""
        try:
            return self.repo.resolve(ref)
        except NotFound:
            pass
        try:
            when = parse_time(ref)
        except BadInput:
            raise NotFound("as-of", f"{ref!r} is neither a commit, a branch nor a timestamp") from None
        for commit in self.repo.log(self.branch):
            if parse_time(commit.date.replace(" ", "T")) <= when:
                return commit.hash
        raise NotFound("as-of", f"{ref} is before this agent's first commit")
