"""Recall: the memories that answer a query best.

Hybrid: the query's words (BM25 over the lexical index) and its meaning (cosine over the
ANN index) each find candidates; each candidate's relevance mixes both, and resonance
(amplitude, trust, recency, access) re-ranks within what is relevant, damped
(core.scoring). A hit below the least relevance asked for is left out, and when none
passes, the closest is named. Recall never commits: access counts (access.py) go to the
unversioned local_access table, buffered.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from ..config import Settings
from ..core import context, scoring
from ..errors import BadInput, NotFound
from ..index.hnsw import EF_SEARCH, VectorIndex
from ..index.keeper import IndexKeeper
from ..index.lexical import LexicalIndex, document_terms
from ..model.refs import MAIN_BRANCH
from ..model import Memory, content_hash, parse_time, utcnow, validate_count
from ..store.tables import Tables
from .access import AccessCounter
from .filters import Filters
from .query import Query
from .results import Candidates, Recalled, RecallHit, Scored

if TYPE_CHECKING:
    from ..store.port import Repository

MAX_K = 10_000  # more than a person or a prompt reads
OVERFETCH = 3
SCAN_BELOW = 4 * EF_SEARCH  # memories: fewer are all scored exactly, without the ANN
# Worded memories whose bound beats the k-th score get their cosine computed; when more than
# NEED_SHARE times the ANN's depth do, the ANN searches 4 times deeper first (measured at 100k:
# a search 4 times deeper costs less than the cosines of 4 times its depth).
NEED_SHARE = 4
SHORT_HASH = re.compile(r"[0-9a-zA-Z]{6,39}")  # the start of a commit hash, as `cmem log` prints it
# How deep the first ANN search looks. Measured at 100k (scripts/bench_store_recall.py): nearly
# every hybrid recall widened from 100 to 400, and one search 400 deep costs less than both.
FIRST_DEPTH = 4 * EF_SEARCH


def _borrowed(rows: Sequence[dict], relevance: np.ndarray) -> np.ndarray:
    """What each of `rows` (in the order they were stored) borrows from its neighbours among
    those not refuted (a refuted claim lends nothing), given every row's own relevance."""
    codes: dict[str, int] = {}
    origins = np.array([codes.setdefault(r["origin_agent"], len(codes)) for r in rows])
    created = np.array([parse_time(r["created_at"]).timestamp() for r in rows])
    standing = np.flatnonzero([not r.get("refuted_by") for r in rows])
    return context.lent(relevance, *context.neighbours(standing, origins[standing], created[standing], len(rows)))


def _by_label(index: VectorIndex, counts: Mapping[str, int]) -> np.ndarray:
    """Access counts keyed by memory id, laid out by the index's labels."""
    out = np.zeros(index.label_count, dtype=np.int64)
    if counts:
        ids = list(counts)
        labels = index.labels_of(ids)
        found = labels >= 0
        out[labels[found]] = np.array([counts[i] for i in ids], dtype=np.int64)[found]
    return out



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
        self._counts_kept: tuple[tuple, np.ndarray] | None = None
        self._bounds_kept: tuple[tuple, float, np.ndarray] | None = None

    def recall(self, query: str, query_vector: np.ndarray, *, k: int, as_of: str | None = None,
               include_faded: bool = False, include_refuted: bool = False, now: datetime | None = None,
               consensus: bool = False, min_score: float | None = None, filters: Filters = Filters()) -> Recalled:
        """Memories ranked by score, best first; `as_of` recalls what the agent believed then,
        `consensus` only what is on main (scored with the trust of now). Those less relevant
        than `min_score` (default: the configured one) are left out."""
        k = validate_count(k, "k", maximum=MAX_K)
        least = self.settings.min_score if min_score is None else min_score
        now = now or utcnow()
        if consensus:
            if as_of is not None:
                raise BadInput("consensus", "recalls main as it is now: it cannot be combined with --as-of")
            return self._recall_as_of(query, query_vector, k, self.repo.head(MAIN_BRANCH), include_faded,
                                      include_refuted, now, least, filters, trust_of_then=False)
        if as_of is not None:
            return self._recall_as_of(query, query_vector, k, self.resolve_as_of(as_of), include_faded,
                                      include_refuted, now, least, filters)
        index = self.keeper.current()
        scored, closest = self._search(index, query, query_vector, k, include_faded, include_refuted, now, least,
                                       filters)
        hits = self._hits(scored + ([closest] if closest and not scored else []))
        if scored:
            self._record(index, [h.memory.id for h in hits], now)
            return Recalled(hits, None, least)
        return Recalled([], hits[0] if hits else None, least)

    def _search(self, index: VectorIndex, query: str, query_vector: np.ndarray, k: int, include_faded: bool,
                include_refuted: bool, now: datetime, least: float, filters: Filters
                ) -> tuple[list[Scored], Scored | None]:
        """The exact top k by score among the memories at least `least` relevant (those whose
        text is the query itself first), and the best scored one below it. The ANN gives the
        candidates by meaning, with the memories stored beside them; every memory holding a
        query word (or beside one that does) has its relevance bounded (a cosine at most the
        ANN's last) and only those whose bound beats the k-th score get their cosine.
        Any other memory is bounded by the ANN's last cosine alone: the ANN search widens until
        that bound falls below the k-th score."""
        allowed = filters.allowed(index, include_refuted=include_refuted)
        exact = index.labels_of(self.tables.memories.ids_by_hash(content_hash(query)))
        exact = exact[exact >= 0]  # held but not indexed (absorbed, retracted): -1
        exact = exact[allowed[exact]]
        counts = self._counts_by_label(index)
        trust_scores = self.trust_scores()
        strength_bound = self._strength_bound(index, trust_scores, now)
        half_lives, threshold = self.settings.half_lives, self.settings.fade_threshold
        with Query(index, query, query_vector, counts=counts,
                   strength=lambda labels: index.strengths_at(labels, trust_scores, now.timestamp(), half_lives),
                   faded=None if include_faded else
                   lambda labels: index.fading_at(labels, now.timestamp(), half_lives) < threshold) as asked:
            if filters or len(index) <= SCAN_BELOW:  # narrowed or small: every allowed memory, exactly
                return self._best(index, asked.scored(np.flatnonzero(allowed)), k, least, exact)
            return self._widening(index, asked, query_vector, k, least, allowed, exact, counts, strength_bound)

    def _widening(self, index: VectorIndex, asked: Query, query_vector: np.ndarray, k: int, least: float,
                  allowed: np.ndarray, exact: np.ndarray, counts: np.ndarray, strength_bound: np.ndarray
                  ) -> tuple[list[Scored], Scored | None]:
        """`_search` past the small or narrowed case: ANN searches, deeper until exact."""
        worded = asked.worded
        largest_boost = float(scoring.boost(np.array(counts.max(initial=0))))
        resonance_bound = float(scoring.resonance(np.array(strength_bound.max(initial=0.0)),
                                                  np.array(counts.max(initial=0))))
        want = max(k * OVERFETCH, FIRST_DEPTH)
        while True:
            found, sims = index.search_labels(query_vector, want)
            last = max(float(sims[-1]), 0.0) if len(sims) == want else 0.0
            asked.found(found, sims)
            found = np.concatenate([found, exact[~np.isin(exact, found)]])  # its own text's memory may lie far
            seen = np.zeros(len(allowed), dtype=bool)
            seen[found] = True  # a mask, not np.isin: worded may hold thousands
            alone = asked.scored(found[allowed[found]], borrowing=False)
            kth = alone.kth(k, least)  # without borrowing: at most the k-th
            borrowers = asked.borrowers((worded, found), last, lend_at=kth / max(resonance_bound, 1e-12))
            may_borrow = np.zeros(len(allowed), dtype=bool)
            may_borrow[borrowers] = True
            close = (alone.scores >= kth) | may_borrow[alone.labels]  # the others stay below the k-th
            candidates = asked.scored(alone.labels[close])
            kth = candidates.kth(k, least)
            others = np.concatenate([worded, borrowers[asked.lexical[borrowers] == 0]])
            others = others[~seen[others] & allowed[others]]
            bound = asked.bound(others, last)
            reach = bound * scoring.resonance(strength_bound[others], np.full(len(others), largest_boost))
            need = others[(reach >= kth) & (bound >= least)]
            if len(need) > NEED_SHARE * want and want < len(index):
                want *= 4  # a deeper ANN search lowers `last`, and the bound with it, for less than the cosines
                continue
            candidates = candidates.plus(asked.scored(need))
            kth = candidates.kth(k, least)
            wordless = float(scoring.relevance(np.array(last), np.array(0.0)))
            if want >= len(index) or wordless < least or wordless * resonance_bound < kth:
                return self._best(index, candidates, k, least, exact)
            want *= 4

    def _counts_by_label(self, index: VectorIndex) -> np.ndarray:
        """Each label's access count, this process's pending ones included: laid out by label
        once per change of the index or of the counts read, then kept up by `_record`."""
        known = self.access.counts()
        key = (id(index), index.version, self.access.version)
        if self._counts_kept is None or self._counts_kept[0] != key:
            counts = _by_label(index, known) + _by_label(index, self.access.pending)
            self._counts_kept = (key, counts)
        return self._counts_kept[1]

    def _record(self, index: VectorIndex, ids: list[str], now: datetime) -> None:
        """Count an access to each hit, and in the kept layout too while it stays valid."""
        self.access.record(ids, now)
        if self._counts_kept is not None and self._counts_kept[0] == (id(index), index.version, self.access.version):
            self._counts_kept[1][index.labels_of(ids)] += 1

    def _strength_bound(self, index: VectorIndex, trust_scores: Mapping[str, float], now: datetime) -> np.ndarray:
        """By label: a strength no less than each memory's at `now`. Recency only falls with
        time, so the strengths computed once at an earlier moment bound them until trust or
        the index changes."""
        key = (id(index), index.version, tuple(sorted(trust_scores.items())))
        kept = self._bounds_kept
        if kept is None or kept[0] != key or kept[1] > now.timestamp():
            labels = np.arange(index.label_count)
            kept = self._bounds_kept = (key, now.timestamp(), index.strengths_at(
                labels, trust_scores, now.timestamp(), self.settings.half_lives))
        return kept[2]

    @staticmethod
    def _best(index: VectorIndex, candidates: "Candidates", k: int, least: float, first: np.ndarray
              ) -> tuple[list[Scored], Scored | None]:
        """The top k passing `least` (`first` first), and the best below it (as Scored, with
        memory ids)."""
        top, closest = candidates.top(k, least, first)
        chosen = np.concatenate([top, [closest] if closest is not None else []]).astype(np.int64)
        ids = index.ids_of(candidates.labels[chosen])
        rows = [candidates.row(i, mid) for i, mid in zip(chosen.tolist(), ids)]
        return rows[:len(top)], rows[len(top)] if closest is not None else None

    def _recall_as_of(self, query: str, query_vector: np.ndarray, k: int, commit: str, include_faded: bool,
                      include_refuted: bool, now: datetime, least: float, filters: Filters, *,
                      trust_of_then: bool = True) -> Recalled:
        """Brute force over the memories as they were at `commit`, scored with the trust of
        then (or of now; a memory refuted later is not refuted then). As the index would hold
        them: words counted and neighbours found among all of them, filters applied after."""
        dim = int(query_vector.shape[0])
        held = sorted((r for r in self.tables.memories.rows(as_of=commit)
                       if not r["retracted"] and r["absorbed_into"] is None and r["dim"] == dim),
                      key=lambda r: r["id"])  # stored together, in the order they were stored
        if not held:
            return Recalled([], None, least)
        memories = [Memory.from_row(r) for r in held]
        words = LexicalIndex()
        words.add(range(len(held)), [document_terms(m.content, m.tags) for m in memories], [m.tags for m in memories])
        all_sims = np.stack([m.vector for m in memories]) @ query_vector
        all_lexical = words.scores(query, np.ones(len(held), dtype=bool))
        borrowed = _borrowed(held, scoring.relevance(all_sims, all_lexical))
        chosen = [i for i, r in enumerate(held)
                  if (include_refuted or not r.get("refuted_by")) and (not filters or filters.admits(r))]
        rows = [held[i] for i in chosen]
        if not rows:
            return Recalled([], None, least)
        trust = self.trust_scores(as_of=commit) if trust_of_then else self.trust_scores()
        strength = scoring.row_strengths(rows, trust, now.timestamp(), self.settings.half_lives)
        faded = None if include_faded else (scoring.row_fading(rows, now.timestamp(), self.settings.half_lives)
                                            < self.settings.fade_threshold)
        scored = self._score([r["id"] for r in rows], all_sims[chosen], all_lexical[chosen], borrowed[chosen], strength,
                             faded)
        asked = content_hash(query)
        own_text = {r["id"] for r in rows if r["content_hash"] == asked}
        passing = sorted((s for s in scored if s[1] >= least), key=lambda s: s[-1] not in own_text)[:k]
        if passing:
            return Recalled(self._hits(passing, rows={r["id"]: r for r in rows}), None, least)
        closest = self._hits(scored[:1], rows={r["id"]: r for r in rows})
        return Recalled([], closest[0] if closest else None, least)

    def _score(self, ids: Sequence[str], sims: np.ndarray, lexical: np.ndarray, borrowed: np.ndarray,
               strengths: np.ndarray, faded: np.ndarray | None) -> list[Scored]:
        """Best first; the `faded` ones left out."""
        known, pending = self.access.counts(), self.access.pending
        counts = np.array([known.get(mid, 0) + pending.get(mid, 0) for mid in ids], dtype=np.int64)
        relevance = scoring.relevance(sims, lexical)
        scores = scoring.scores(np.maximum(relevance, borrowed), strengths, counts)
        order = [int(i) for i in np.argsort(-scores, kind="stable") if faded is None or not faded[i]]
        return [(float(scores[i]), float(relevance[i]), float(sims[i]), float(lexical[i]), float(borrowed[i]),
                 float(strengths[i]), int(counts[i]), ids[i]) for i in order]

    def _hits(self, scored: Sequence[Scored], *, rows: Mapping[str, dict] | None = None) -> list[RecallHit]:
        """Whole memories for the chosen few (scoring needed only the index's columns)."""
        if rows is None:
            rows = {r["id"]: r for r in self.tables.memories.rows_by_id([s[-1] for s in scored])}
        return [RecallHit(Memory.from_row(rows[mid]), score, similarity, strength, n, relevance, lexical, borrowed)
                for score, relevance, similarity, lexical, borrowed, strength, n, mid in scored]

    def browse(self, filters: Filters, *, limit: int, offset: int, include_refuted: bool) -> dict:
        """A page of the indexed memories passing `filters`, newest first."""
        limit = validate_count(limit, "limit", maximum=MAX_K)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise BadInput("offset", f"must be a whole number from 0, got {offset!r}")
        index = self.keeper.current()
        labels = np.flatnonzero(filters.allowed(index, include_refuted=include_refuted))
        # newest first; the label breaks ties, so pages never overlap
        order = np.lexsort((-labels, -index.created_at(labels)))
        page = index.ids_of(labels[order[offset:offset + limit]])
        rows = {r["id"]: r for r in self.tables.memories.rows_by_id(page)}
        return {"total": int(len(labels)), "offset": offset,
                "memories": [Memory.from_row(rows[mid]).to_dict() for mid in page if mid in rows]}

    def resolve_as_of(self, ref: str) -> str:
        """A commit (whole, or the first characters `cmem log` prints), branch, tag or
        timestamp -> a commit hash on this agent's history."""
        try:
            return self.repo.resolve(ref)
        except NotFound:
            pass
        found = self._commit_by_prefix(ref)
        if found:
            return found
        try:
            when = parse_time(ref)
        except BadInput:
            raise NotFound("as-of", f"{ref!r} is neither a commit, a branch nor a timestamp") from None
        for commit in self.repo.log(self.branch):
            if parse_time(commit.date.replace(" ", "T")) <= when:
                return commit.hash
        raise NotFound("as-of", f"{ref} is before this agent's first commit")

    def _commit_by_prefix(self, ref: str) -> str | None:
        """The one commit on this agent's branch whose hash starts with `ref` (None when none)."""
        if not SHORT_HASH.fullmatch(ref):
            return None
        found = {commit.hash for commit in self.repo.log(self.branch) if commit.hash.startswith(ref.lower())}
        if len(found) > 1:
            raise BadInput("as-of", f"{ref!r} starts {len(found)} commits' hashes: give more of it")
        return found.pop() if found else None
