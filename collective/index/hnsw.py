"""The ANN index (an HNSW graph by usearch, graph.py; cosine) kept beside the agent's database.

It holds every memory not retracted nor absorbed (refuted ones flagged beside it) of the
agent's embedding model. It remembers the database head it reflects; when the
head moved it applies the Dolt diff since then, and rebuilds from scratch
when it cannot (missing files, another model, a head it cannot diff from, files
of another layout such as the hnswlib ones of earlier versions).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from ..core.scoring import SCORE_COLUMNS, SCORE_DTYPE as _SCORE_DTYPE, score_table, strengths
from ..errors import StorageError
from ..runtime.progress import Progress
from ..model import blob_to_vector
from . import graph

if TYPE_CHECKING:
    from ..store.port import Repository

EF_SEARCH = 100  # how deep one search looks (at least k deep)
# A search for k of n memories scans all n vectors (numpy, exact) when k * SCAN_SHARE >= n.
# Measured on 5,000 clustered vectors, 2 busy cores: the graph and the scan cost the same near
# k = n / 32 (0.15 ms at 64 dims, 0.3 ms at 384); at k = n / 4 the graph takes 3.5 times the scan.
SCAN_SHARE = 16
# Written into index.json; files of any other layout (hnswlib's had none) are rebuilt
LAYOUT = "usearch-ip-bf16-1"
PROGRESS_PART = 5000  # rows added between two progress reports
_COLUMNS = ("id", "content", "vector", "dim", "model_version", "retracted", "absorbed_into", *SCORE_COLUMNS)


def read_meta(folder: Path) -> dict | None:
    """The saved index's description (head, count, ...), or None when none was saved or
    it is not one this code wrote (broken, edited): the index is derived, so it is rebuilt."""
    try:
        meta = json.loads((folder / "index.json").read_bytes())
    except (OSError, ValueError):
        return None
    return meta if _sidecar_fits(meta) else None


def _sidecar_fits(meta) -> bool:
    """Whether index.json holds what a save writes; anything else (broken, edited) is rebuilt."""
    return (isinstance(meta, dict) and meta.get("layout") == LAYOUT
            and isinstance(meta.get("head"), (str, type(None)))
            and all(_whole(meta.get(key)) for key in ("dim", "capacity", "count"))
            and isinstance(meta.get("model_version"), str)
            and isinstance(meta.get("deleted"), list) and all(_whole(label) for label in meta["deleted"])
            and isinstance(meta.get("origins"), list) and all(isinstance(o, str) for o in meta["origins"]))


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def indexable(row: dict, model_version: str, dim: int) -> bool:
    return (not row["retracted"] and row["absorbed_into"] is None
            and row["model_version"] == model_version and row["dim"] == dim)


class VectorIndex:
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

    # --- files ---------------------------------------------------------
    @property
    def _scores_path(self) -> Path:
        return self.folder / "index-scores.npy"

    @property
    def _vectors_path(self) -> Path:
        return self.folder / "index-vectors.npy"

    @property
    def _paths(self) -> tuple[Path, Path, Path]:
        return self.folder / "index.usearch", self.folder / "index-ids.npy", self.folder / "index.json"

    def _new(self):
        return graph.new(self.dim, EF_SEARCH)

    def load(self) -> bool:
        index_path, ids_path, _ = self._paths
        try:
            with self._lock(exclusive=False):  # never files from two different saves
                meta = read_meta(self.folder)
                if meta is None or meta.get("dim") != self.dim or meta.get("model_version") != self.model_version:
                    return False
                ids = [str(x) for x in np.load(ids_path, allow_pickle=False)]
                scores = np.load(self._scores_path, allow_pickle=False)
                # mapped, not read: only a scan touches it, and a save replaces the file, never writes into it
                vectors = np.load(self._vectors_path, mmap_mode="r", allow_pickle=False)
                origins = [str(o) for o in meta["origins"]]
                index = graph.load(index_path, self.dim, EF_SEARCH)
            # The graph says which labels were removed: index.json may be older than the other files
            held = index.contains(np.arange(len(ids), dtype=np.uint64))
            if (scores.dtype != _SCORE_DTYPE or vectors.dtype != np.float32 or vectors.shape[1:] != (self.dim,)
                    or index.ndim != self.dim or not len(scores) == len(ids) == len(vectors)
                    or int(held.sum()) != len(index)):
                return False  # a save was interrupted between its files, or an older layout: rebuild
        except (OSError, ValueError, KeyError, RuntimeError):
            return False
        self._index, self._ids, self.head = index, ids, meta["head"]
        deleted = set(np.flatnonzero(~held).tolist())
        self._labels = {mid: label for label, mid in enumerate(ids) if label not in deleted}
        self._deleted = deleted
        self._scores, self._vectors, self._origins, self._max_amplitude = scores, vectors, origins, None
        self._origin_code = {o: code for code, o in enumerate(origins)}
        return True

    def save(self) -> None:
        if self._index is None or not self._dirty:
            return
        with self._lock(exclusive=True):
            self._save()
        self._dirty = False

    @contextlib.contextmanager
    def _lock(self, *, exclusive: bool):
        """Processes sharing the agent take turns: one writes the files while nobody reads."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "index.lock", "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield  # closing the file releases the lock

    def _save(self) -> None:
        index_path, ids_path, meta_path = self._paths
        tmp_index = index_path.with_suffix(".tmp")
        self._index.save(tmp_index)
        with open(ids_path.with_suffix(".tmp"), "wb") as f:
            np.save(f, np.array(self._ids, dtype="U64"), allow_pickle=False)
        with open(self._scores_path.with_suffix(".tmp"), "wb") as f:
            np.save(f, self._scores, allow_pickle=False)
        with open(self._vectors_path.with_suffix(".tmp"), "wb") as f:
            np.save(f, self._vectors, allow_pickle=False)
        meta = {"head": self.head, "dim": self.dim, "model_version": self.model_version,
                "capacity": self._index.capacity, "count": len(self._labels),
                "deleted": sorted(self._deleted), "origins": self._origins, "layout": LAYOUT}
        os.replace(tmp_index, index_path)
        os.replace(ids_path.with_suffix(".tmp"), ids_path)
        os.replace(self._scores_path.with_suffix(".tmp"), self._scores_path)
        os.replace(self._vectors_path.with_suffix(".tmp"), self._vectors_path)
        tmp_meta = meta_path.with_suffix(".tmp")
        tmp_meta.write_text(json.dumps(meta))
        os.replace(tmp_meta, meta_path)  # last: a crash before this leaves the old head, so we redo the diff
        with contextlib.suppress(FileNotFoundError):
            (self.folder / "index.hnsw").unlink()  # the graph of an older layout, rebuilt into this one

    # --- keeping it current ---------------------------------------------
    def ensure(self, repo: Repository, head: str, *, on_indexed: Callable[[Sequence[dict]], None] | None = None,
               progress: Progress | None = None, save: bool = True) -> str:
        """Bring the index to `head`; returns how: 'current', 'updated' or 'rebuilt'.
        `on_indexed` is handed the memory rows the index took in. `save=False` leaves the
        files to a later save (the files name their head, so a crash before it only redoes
        the diff)."""
        if self._index is None and not self.load():
            self.rebuild(repo, head, on_indexed=on_indexed, progress=progress)
            return "rebuilt"
        if self.head == head:
            return "current"
        try:
            changes = list(repo.diff(self.head, head, "memories"))
        except StorageError:
            self.rebuild(repo, head, on_indexed=on_indexed, progress=progress)
            return "rebuilt"
        upserts: list[dict] = []
        rescored: list[dict] = []
        for change in changes:
            row = change.new
            if row is not None and indexable(row, self.model_version, self.dim):
                # a dream or a merge changes amplitudes far more often than vectors or texts
                same = (change.old is not None and row["id"] in self._labels and row["vector"] == change.old["vector"]
                        and row["content"] == change.old["content"])
                (rescored if same else upserts).append(row)
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
                progress: Progress | None = None) -> None:
        rows = [r for r in repo.select("memories", columns=_COLUMNS, as_of=head)
                if indexable(r, self.model_version, self.dim)]
        self._index = self._new()
        self._ids, self._labels, self._deleted = [], {}, set()
        self._scores, self._origins, self._origin_code = np.zeros(0, dtype=_SCORE_DTYPE), [], {}
        self._vectors = np.zeros((0, self.dim), dtype=np.float32)
        self._max_amplitude = None
        self.add_in_parts(rows, progress)
        if on_indexed is not None and rows:
            on_indexed(rows)
        self.head = head
        self._dirty = True
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
        return np.fromiter(self._labels.values(), dtype=np.int64, count=len(self._labels))

    def rescore(self, rows: Sequence[dict]) -> None:
        """New score columns (amplitude, origin, age, category) for rows indexed already."""
        if rows:
            labels = np.array([self._labels[r["id"]] for r in rows])
            self._scores[labels] = score_table(rows, self._code)
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

    def refuted_at(self, labels: np.ndarray) -> np.ndarray:
        """Whether a verdict refuted each label's memory (kept in the index: merges meet
        refuted claims again; recall leaves them out unless asked)."""
        return self._scores["refuted"][labels].astype(bool)

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
