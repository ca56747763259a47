"""The ANN index (hnswlib, cosine) kept beside the agent's database.

It holds every recallable memory (not retracted, not absorbed) of the
agent's embedding model. It remembers the database head it reflects; when the
head moved it applies the Dolt diff since then, and rebuilds from scratch
when it cannot (missing files, another model, a head it cannot diff from).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import StorageError
from .model import blob_to_vector

M = 16
EF_CONSTRUCTION = 200
EF_SEARCH = 100
_COLUMNS = ("id", "vector", "dim", "model_version", "retracted", "absorbed_into", "amplitude")


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
        # amplitude per label: recall bounds a candidate's score before it reads the row
        self._amp = np.zeros(0, dtype=np.float32)

    # --- files ---------------------------------------------------------
    @property
    def _amp_path(self) -> Path:
        return self.folder / "index-amp.npy"

    @property
    def _paths(self) -> tuple[Path, Path, Path]:
        return self.folder / "index.hnsw", self.folder / "index-ids.npy", self.folder / "index.json"

    def _new(self, capacity: int):
        import hnswlib  # imported lazily: `cmem store` never needs it

        index = hnswlib.Index(space="cosine", dim=self.dim)
        index.init_index(max_elements=max(capacity, 1024), ef_construction=EF_CONSTRUCTION, M=M)
        index.set_ef(EF_SEARCH)
        index.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
        return index

    def load(self) -> bool:
        import hnswlib

        index_path, ids_path, meta_path = self._paths
        try:
            with self._lock(exclusive=False):  # never files from two different saves
                meta = json.loads(meta_path.read_text())
                if meta.get("dim") != self.dim or meta.get("model_version") != self.model_version:
                    return False
                ids = [str(x) for x in np.load(ids_path, allow_pickle=False)]
                amp = np.load(self._amp_path, allow_pickle=False)
                index = hnswlib.Index(space="cosine", dim=self.dim)
                index.load_index(str(index_path), max_elements=meta["capacity"])
            if not len(amp) == len(ids) == index.get_current_count():
                return False  # a save was interrupted between its files: rebuild
        except (OSError, ValueError, KeyError, RuntimeError):
            return False
        index.set_ef(EF_SEARCH)
        self._index, self._ids, self.head = index, ids, meta["head"]
        deleted = set(meta.get("deleted", []))
        self._labels = {mid: label for label, mid in enumerate(ids) if label not in deleted}
        self._deleted = deleted
        self._amp = amp.astype(np.float32)
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
        self._index.save_index(str(tmp_index))
        with open(ids_path.with_suffix(".tmp"), "wb") as f:
            np.save(f, np.array(self._ids, dtype="U64"), allow_pickle=False)
        with open(self._amp_path.with_suffix(".tmp"), "wb") as f:
            np.save(f, self._amp, allow_pickle=False)
        meta = {"head": self.head, "dim": self.dim, "model_version": self.model_version,
                "capacity": self._index.get_max_elements(), "count": len(self._labels),
                "deleted": sorted(self._deleted)}
        os.replace(tmp_index, index_path)
        os.replace(ids_path.with_suffix(".tmp"), ids_path)
        os.replace(self._amp_path.with_suffix(".tmp"), self._amp_path)
        tmp_meta = meta_path.with_suffix(".tmp")
        tmp_meta.write_text(json.dumps(meta))
        os.replace(tmp_meta, meta_path)  # last: a crash before this leaves the old head, so we redo the diff

    # --- keeping it current ---------------------------------------------
    def ensure(self, repo, head: str) -> str:
        """Bring the index to `head`; returns how: 'current', 'updated' or 'rebuilt'."""
        if self._index is None and not self.load():
            self.rebuild(repo, head)
            return "rebuilt"
        if self.head == head:
            return "current"
        try:
            changes = list(repo.diff(self.head, head, "memories"))
        except StorageError:
            self.rebuild(repo, head)
            return "rebuilt"
        upserts: list[dict] = []
        for change in changes:
            row = change.new
            if row is not None and indexable(row, self.model_version, self.dim):
                upserts.append(row)
            else:
                self.remove([(change.new or change.old)["id"]])
        self.add([(r["id"], blob_to_vector(r["vector"])) for r in upserts], [r["amplitude"] for r in upserts])
        self.head = head
        self._dirty = True
        self.save()
        return "updated"

    def rebuild(self, repo, head: str) -> None:
        rows = [r for r in repo.select("memories", columns=_COLUMNS, as_of=head)
                if indexable(r, self.model_version, self.dim)]
        self._index = self._new(int(len(rows) * 1.3) + 1024)
        self._ids, self._labels, self._deleted = [], {}, set()
        self.add([(r["id"], blob_to_vector(r["vector"])) for r in rows], [r["amplitude"] for r in rows])
        self.head = head
        self._dirty = True
        self.save()

    def add(self, items: Sequence[tuple[str, np.ndarray]], amplitudes: Sequence[float] | None = None) -> None:
        """Index (id, unit vector) pairs; without their amplitudes, recall cannot bound them
        and reads their rows whatever their similarity."""
        if not items:
            return
        self.remove([mid for mid, _ in items if mid in self._labels])
        needed = len(self._ids) + len(items)
        if needed > self._index.get_max_elements():
            self._index.resize_index(int(needed * 1.5))
        start = len(self._ids)
        labels = np.arange(start, start + len(items))
        self._index.add_items(np.stack([v for _, v in items]).astype(np.float32), labels)
        for offset, (mid, _) in enumerate(items):
            self._ids.append(mid)
            self._labels[mid] = start + offset
        amp = np.full(len(items), np.inf, dtype=np.float32) if amplitudes is None else \
            np.asarray(amplitudes, dtype=np.float32)
        self._amp = np.concatenate([self._amp[:start], amp])
        self._dirty = True

    def remove(self, ids: Sequence[str]) -> None:
        for mid in ids:
            label = self._labels.pop(mid, None)
            if label is not None:
                with contextlib.suppress(RuntimeError):  # already marked in a file an interrupted save left
                    self._index.mark_deleted(label)
                self._deleted.add(label)
                self._dirty = True

    def __len__(self) -> int:
        return len(self._labels)

    @property
    def max_amplitude(self) -> float:
        """An upper bound of every indexed memory's amplitude (removed ones may still count)."""
        return float(self._amp.max()) if len(self._amp) else 0.0

    def amplitudes(self, ids: Sequence[str]) -> list[float]:
        """The amplitude each memory had when indexed (inf for one indexed without)."""
        return [float(self._amp[self._labels[mid]]) if mid in self._labels else float("inf") for mid in ids]

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Up to k (memory id, cosine similarity), best first."""
        labels, sims = self.search_labels(vector, k)
        return [(self._ids[label], float(sim)) for label, sim in zip(labels.tolist(), sims)]

    def search_labels(self, vector: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """`search` as arrays (labels, cosine similarities), for callers that look at many."""
        k = min(k, len(self._labels))
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        self._index.set_ef(max(EF_SEARCH, k))
        labels, distances = self._index.knn_query(np.asarray(vector, dtype=np.float32), k=k)
        return labels[0].astype(np.int64), 1.0 - distances[0]

    def ids_of(self, labels: Sequence[int]) -> list[str]:
        return [self._ids[label] for label in np.asarray(labels).tolist()]

    def amplitudes_at(self, labels: np.ndarray) -> np.ndarray:
        return self._amp[labels]

    def search_many(self, vectors: np.ndarray, k: int, *, ef: int = EF_SEARCH) -> list[list[tuple[str, float]]]:
        """`ef` trades recall for speed; a merge, which only wants near neighbours, passes less."""
        k = min(k, len(self._labels))
        if k <= 0:
            return [[] for _ in range(len(vectors))]
        self._index.set_ef(max(ef, k))
        labels, distances = self._index.knn_query(np.asarray(vectors, dtype=np.float32), k=k)
        return [[(self._ids[int(l)], 1.0 - float(d)) for l, d in zip(row_l, row_d)]
                for row_l, row_d in zip(labels, distances)]

    def state(self) -> dict:
        return {"head": self.head, "count": len(self._labels), "dim": self.dim,
                "model_version": self.model_version}
