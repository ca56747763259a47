"""The ANN index (an HNSW graph by usearch, graph.py; cosine) kept beside the agent's database.

It holds every memory not retracted nor absorbed (refuted ones flagged beside it) of the
agent's embedding model. It remembers the database head it reflects; when the
head moved it applies the Dolt diff since then, and rebuilds from scratch
when it cannot (missing files, another model, a head it cannot diff from, files
of another layout such as the hnswlib ones of earlier versions). Beside each vector it
keeps the memory's score columns and, in lexical.py's index, its words and tags; its
files are files.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from ..core import context
from ..core.scoring import SCORE_COLUMNS, SCORE_DTYPE as _SCORE_DTYPE, fading, score_table, strengths
from ..errors import StorageError
from ..runtime.progress import Progress
from ..model import CATEGORIES, blob_to_vector, row_tags
from . import graph
from .files import IndexFiles
from .graph import EF_SEARCH
from .lexical import LexicalIndex, document_terms

if TYPE_CHECKING:
    from ..store.port import Repository

# A search for k of n memories scans all n vectors (numpy, exact) when k * SCAN_SHARE >= n.
# Measured on 5,000 clustered vectors, 2 busy cores: the graph and the scan cost the same near
# k = n / 32 (0.15 ms at 64 dims, 0.3 ms at 384); at k = n / 4 the graph takes 3.5 times the scan.
SCAN_SHARE = 16
PROGRESS_PART = 5000  # rows added between two progress reports
SPARE_ARRAYS = 4  # arrays by label kept for queries to borrow, per kind (one per query running at once)
_COLUMNS = ("id", "content", "tags", "vector", "dim", "model_version", "retracted", "absorbed_into", *SCORE_COLUMNS)
_SEARCHED_BY = ("vector", "content", "tags")  # a row whose are unchanged is only rescored


def indexable(row: dict, model_version: str, dim: int) -> bool:
    return (not row["retracted"] and row["absorbed_into"] is None
            and row["model_version"] == model_version and row["dim"] == dim)


class VectorIndex(IndexFiles):
    def __init__(self, folder: Path, *, dim: int, model_version: str):
        self.folder = folder
        self.dim = dim
        self.model_version = model_version
        self.head: str | None = None
        self._index = None
        self._ids: list[str] = []
        self._labels: dict[str, int] = {}
        self._deleted: set[int] = set()
        self._dirty = False
        self._scores = np.zeros(0, dtype=_SCORE_DTYPE)
        self._vectors = np.zeros((0, dim), dtype=np.float32)  # unit vectors by label, for exact scans
        self._origins: list[str] = []  # origin agent of each code in _scores["origin"]
        self._origin_code: dict[str, int] = {}
        self._max_amplitude: float | None = None  # of _scores, computed when first asked
        self._lexical = LexicalIndex()  # the words of each label's memory, for the lexical half of recall
        self._live = np.zeros(0, dtype=bool)  # by label: indexed and not removed since
        self.version = 0  # counts changes to what is indexed or how it scores, for callers' caches
        self._refuted_kept: tuple[int, tuple[np.ndarray, np.ndarray]] = (-1, (np.zeros(0, bool), np.zeros(0, bool)))
        self._statistics_kept: tuple[int, tuple[int, float]] = (-1, (0, 1.0))
        self._neighbours_kept: tuple[int, tuple[np.ndarray, np.ndarray]] = (-1, (np.zeros(0), np.zeros(0)))
        self.spare = SpareArrays()  # arrays by label for queries to borrow

    def _new(self):
        return graph.new(self.dim, EF_SEARCH)

    # --- keeping it current ---------------------------------------------
    def ensure(self, repo: Repository, head: str, *, on_indexed: Callable[[Sequence[dict]], None] | None = None,
               progress: Progress | None = None, save: bool = True) -> str:
        """Bring the index to `head`; returns how: 'current', 'updated' or 'rebuilt'.
        `on_indexed` is handed the memory rows the index took in. `save=False` leaves the
        files to a later save (the files name their head, so a crash before it only redoes
        the diff)."""
        if self._index is None and not self.load():
            self.rebuild(repo, head, on_indexed=on_indexed, progress=progress, save=save)
            return "rebuilt"
        if self.head == head:
            return "current"
        try:
            # only what the index keeps, and whether what it searches by changed, compared by the engine
            changes = list(repo.diff(self.head, head, "memories", columns=_COLUMNS, compare=_SEARCHED_BY))
        except StorageError:
            self.rebuild(repo, head, on_indexed=on_indexed, progress=progress, save=save)
            return "rebuilt"
        upserts: list[dict] = []
        rescored: list[dict] = []
        for change in changes:
            row = change.new
            if row is not None and indexable(row, self.model_version, self.dim):
                # a dream or a merge changes amplitudes far more often than vectors or texts
                (rescored if change.same and row["id"] in self._labels else upserts).append(row)
            else:
                self.remove([(change.new or change.old)["id"]])
        self.rescore(rescored)
        self.add_in_parts(upserts, progress)
        if on_indexed is not None and upserts:
            on_indexed(upserts)
        self.head = head
        self._dirty = True
        if save:
            self.save()
        return "updated"

    def rebuild(self, repo: Repository, head: str, *, on_indexed: Callable[[Sequence[dict]], None] | None = None,
                progress: Progress | None = None, save: bool = True) -> None:
        rows = [r for r in repo.select("memories", columns=_COLUMNS, as_of=head)
                if indexable(r, self.model_version, self.dim)]
        self._index = self._new()
        self._ids, self._labels, self._deleted = [], {}, set()
        self._scores, self._origins, self._origin_code = np.zeros(0, dtype=_SCORE_DTYPE), [], {}
        self._vectors = np.zeros((0, self.dim), dtype=np.float32)
        self._max_amplitude = None
        self._lexical, self._live = LexicalIndex(), np.zeros(0, dtype=bool)
        self.add_in_parts(rows, progress)
        if on_indexed is not None and rows:
            on_indexed(rows)
        self.head = head
        self._dirty = True
        if save:
            self.save()

    def add_in_parts(self, rows: Sequence[dict], progress: Progress | None) -> None:
        """`add`, in parts when someone watches the progress (a 100k rebuild takes a minute)."""
        if progress is None:
            self.add(rows)
            return
        for start in range(0, len(rows), PROGRESS_PART):
            progress("index", start, len(rows))
            self.add(rows[start:start + PROGRESS_PART])
        progress("index", len(rows), len(rows))

    def add(self, rows: Sequence[dict]) -> None:
        """Index memory rows (id, vector and the SCORE_COLUMNS); a row already indexed is replaced."""
        if not rows:
            return
        self.remove([r["id"] for r in rows if r["id"] in self._labels])
        start = len(self._ids)
        labels = np.arange(start, start + len(rows), dtype=np.uint64)  # a label is never given twice
        vectors = _unit(np.stack([blob_to_vector(r["vector"]) for r in rows]))
        self._index.add(labels, vectors, threads=graph.THREADS)
        for offset, r in enumerate(rows):
            self._ids.append(r["id"])
            self._labels[r["id"]] = start + offset
        self._scores = np.concatenate([self._scores[:start], score_table(rows, self._code)])
        self._vectors = np.concatenate([self._vectors[:start], vectors])
        tags = [row_tags(r) for r in rows]
        self._lexical.add(labels, [document_terms(r["content"], t) for r, t in zip(rows, tags)], tags)
        self._live = np.concatenate([self._live[:start], np.ones(len(rows), dtype=bool)])
        self.version += 1
        self._max_amplitude = None
        self._dirty = True

    def advance(self, head: str, *, rescored: Sequence[dict], added: Sequence[dict]) -> None:
        """Move to `head` when the caller knows everything that changed since the current
        head: rows whose vector and text stayed (`rescored`) and new rows (`added`)."""
        self.rescore([r for r in rescored if r["id"] in self._labels])
        self.add([r for r in added if indexable(r, self.model_version, self.dim)])
        self.head = head
        self._dirty = True
        self.save()

    def live_labels(self) -> np.ndarray:
        """The label of every memory indexed (removed ones left out)."""
        return np.flatnonzero(self._live)

    def rescore(self, rows: Sequence[dict]) -> None:
        """New score columns (amplitude, origin, age, category) for rows indexed already."""
        if rows:
            labels = np.array([self._labels[r["id"]] for r in rows])
            self._scores[labels] = score_table(rows, self._code)
            self.version += 1
            self._max_amplitude = None
            self._dirty = True

    def _code(self, origin: str) -> int:
        code = self._origin_code.get(origin)
        if code is None:
            code = self._origin_code[origin] = len(self._origins)
            self._origins.append(origin)
        return code

    def remove(self, ids: Sequence[str]) -> None:
        for mid in ids:
            label = self._labels.pop(mid, None)
            if label is not None:
                self._index.remove(label)  # a label already gone (a file an interrupted save left) is a no-op
                self._deleted.add(label)
                self._live[label] = False
                self.version += 1
                self._dirty = True

    def __len__(self) -> int:
        return len(self._labels)

    @property
    def label_count(self) -> int:
        """Labels ever given (removed ones included): every label is below this."""
        return len(self._ids)

    @property
    def max_amplitude(self) -> float:
        """An upper bound of every indexed memory's amplitude (removed ones may still count)."""
        if self._max_amplitude is None:
            self._max_amplitude = float(self._scores["amplitude"].max()) if len(self._scores) else 0.0
        return self._max_amplitude

    def amplitudes(self, ids: Sequence[str]) -> list[float]:
        """The amplitude each memory had when indexed (inf for one not indexed)."""
        return [float(self._scores["amplitude"][self._labels[mid]]) if mid in self._labels else float("inf")
                for mid in ids]

    def strengths_at(self, labels: np.ndarray, trust_scores: Mapping[str, float], now: float,
                     half_lives: Mapping[str, float]) -> np.ndarray:
        """amplitude * trust of the origin * recency, for each label, as recall scores it."""
        return strengths(self._scores[labels], self._origins, trust_scores, now, half_lives)

    def fading_at(self, labels: np.ndarray, now: float, half_lives: Mapping[str, float]) -> np.ndarray:
        """What fading weighs for each label (core.scoring.fading: amplitude * recency, no trust)."""
        return fading(self._scores[labels], now, half_lives)

    @property
    def live(self) -> np.ndarray:
        """By label: whether it is indexed now (read only)."""
        return self._live

    def lexical_scores(self, out: np.ndarray, query: str) -> np.ndarray:
        """Writes into `out` (by label, zero where written) the share of the query's words each
        live memory holds (see lexical.py); returns the labels written, sorted."""
        if self._statistics_kept[0] != self.version:
            self._statistics_kept = (self.version, self._lexical.statistics(self._live))
        return self._lexical.scores_into(out, query, self._live, self._statistics_kept[1])

    def neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """By label: the memory its origin stored just before it and just after it, among those
        indexed now and not refuted (-1 for none; core.context: a refuted claim lends its
        relevance to nothing), kept per version."""
        if self._neighbours_kept[0] != self.version:
            standing = np.flatnonzero(self.standing)
            self._neighbours_kept = (self.version, context.neighbours(
                standing, self._scores["origin"][standing], self._scores["created"][standing], self.label_count))
        return self._neighbours_kept[1]

    def similarities(self, vector: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """The exact cosine of the query with each label's vector."""
        return self._vectors[labels] @ _unit(np.asarray(vector)[None, :])[0]

    def allowed(self, *, tags: Sequence[str] = (), categories: Sequence[str] = (), origins: Sequence[str] = (),
                since: float | None = None, until: float | None = None) -> np.ndarray:
        """By label: live and passing every filter given (all tags; any category, any
        origin; created in [since, until], epoch seconds)."""
        mask = self._live.copy()
        for tag in tags:
            carrying = np.zeros(len(mask), dtype=bool)
            carrying[self._lexical.tagged(tag)] = True
            mask &= carrying
        if categories:
            codes = [CATEGORIES.index(c) for c in categories if c in CATEGORIES]
            mask &= np.isin(self._scores["category"], codes)
        if origins:
            mask &= np.isin(self._scores["origin"], [self._origin_code[o] for o in origins if o in self._origin_code])
        if since is not None:
            mask &= self._scores["created"] >= since
        if until is not None:
            mask &= self._scores["created"] <= until
        return mask

    def created_at(self, labels: np.ndarray) -> np.ndarray:
        """When each label's memory was created (epoch seconds)."""
        return self._scores["created"][labels]

    @property
    def refuted(self) -> np.ndarray:
        """By label: whether a verdict refuted its memory (read only; kept per version). Refuted
        memories stay indexed: merges meet refuted claims again; recall leaves them out unless asked."""
        return self._refuted()[0]

    @property
    def standing(self) -> np.ndarray:
        """By label: indexed now and not refuted (read only; kept per version): what a recall
        without filters may return."""
        return self._refuted()[1]

    def _refuted(self) -> tuple[np.ndarray, np.ndarray]:
        if self._refuted_kept[0] != self.version:
            refuted = self._scores["refuted"].astype(bool)
            standing = self._live & ~refuted
            for array in (refuted, standing):
                array.setflags(write=False)
            self._refuted_kept = (self.version, (refuted, standing))
        return self._refuted_kept[1]

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Up to k (memory id, cosine similarity), best first."""
        labels, sims = self.search_labels(vector, k)
        return [(self._ids[label], float(sim)) for label, sim in zip(labels.tolist(), sims)]

    def search_labels(self, vector: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """`search` as arrays (labels, cosine similarities), for callers that look at many."""
        labels, sims = self.search_many_labels(np.asarray(vector)[None, :], k)
        return labels[0], sims[0]

    def ids_of(self, labels: Sequence[int]) -> list[str]:
        return [self._ids[label] for label in np.asarray(labels).tolist()]

    def search_many(self, vectors: np.ndarray, k: int, *, ef: int = EF_SEARCH) -> list[list[tuple[str, float]]]:
        """`ef` trades recall for speed; a merge, which only wants near neighbours, passes less."""
        labels, sims = self.search_many_labels(vectors, k, ef=ef)
        return [[(self._ids[l], float(s)) for l, s in zip(row_l, row_s)]
                for row_l, row_s in zip(labels.tolist(), sims.tolist())]

    def search_many_labels(self, vectors: np.ndarray, k: int, *, ef: int = EF_SEARCH) -> tuple[np.ndarray, np.ndarray]:
        """`search_many` as arrays (labels, cosines), one row per vector, for callers that look at many."""
        k = min(k, len(self._labels))
        if k <= 0 or not len(vectors):
            return np.zeros((len(vectors), 0), dtype=np.int64), np.zeros((len(vectors), 0), dtype=np.float32)
        queries = _unit(vectors)
        if k * SCAN_SHARE >= len(self._labels):
            return _scan(self._vectors, self.live_labels(), queries, k)
        labels, sims, short = graph.nearest(self._index, self._vectors, queries, k, ef)
        if short.any():
            # the graph reached fewer than k live nodes from these queries (a node whose every
            # link in was pruned is found by no search): a scan sees them all
            labels[short], sims[short] = _scan(self._vectors, self.live_labels(), queries[short], k)
        return labels, sims

    def labels_of(self, ids: Sequence[str]) -> np.ndarray:
        """Each memory's label, -1 for one not indexed."""
        return np.array([self._labels.get(mid, -1) for mid in ids], dtype=np.int64)


class SpareArrays:
    """Arrays by label that queries borrow, every entry `fill`, and give back once every entry
    they wrote is `fill` again. A query writes a few thousand of 100k entries: making and
    filling a new array each time cost more than that, and pushed the graph out of the cache."""

    def __init__(self) -> None:
        self._kept: dict[str, list[np.ndarray]] = {}

    def borrow(self, name: str, fill: float, length: int) -> np.ndarray:
        kept = self._kept.setdefault(name, [])
        while kept:
            try:
                out = kept.pop()  # atomic: queries on other threads borrow from the same list
            except IndexError:
                break
            if len(out) == length:  # one made before the index grew is dropped
                return out
        return np.full(length, fill)

    def give_back(self, name: str, out: np.ndarray) -> None:
        kept = self._kept.setdefault(name, [])
        if len(kept) < SPARE_ARRAYS:
            kept.append(out)


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1, so that an inner product is a cosine (a zero row stays zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def _scan(vectors: np.ndarray, live: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact top k (labels, cosines) among the `live` rows of the unit `vectors`, one row
    per query, best first."""
    k = min(k, len(live))
    sims = (vectors @ _unit(queries).T).T[:, live]
    if k < len(live):
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    else:
        top = np.broadcast_to(np.arange(k), sims.shape)
    top_sims = np.take_along_axis(sims, top, axis=1)
    order = np.argsort(-top_sims, axis=1, kind="stable")
    return live[np.take_along_axis(top, order, axis=1)], np.take_along_axis(top_sims, order, axis=1)
