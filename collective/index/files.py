"""The ANN index's files: written together, replaced whole, read back or refused.

A save writes each file beside its final name and replaces them one by one, index.json
last: a crash before that leaves the old head named, so the next open redoes the diff.
Files from two different saves, of another layout or broken are not loaded: the index is
derived from the database, so it is rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

import numpy as np

from ..core.scoring import SCORE_DTYPE as _SCORE_DTYPE
from . import graph
from .graph import EF_SEARCH
from .lexical import LexicalIndex

# Written into index.json; files of any other layout (hnswlib's had none) are rebuilt
LAYOUT = "usearch-ip-bf16-1"

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


class IndexFiles:
    """Mixed into VectorIndex: its files under `folder`, and loading and saving them."""

    @property
    def _scores_path(self) -> Path:
        return self.folder / "index-scores.npy"

    @property
    def _vectors_path(self) -> Path:
        return self.folder / "index-vectors.npy"

    @property
    def _lexical_path(self) -> Path:
        return self.folder / "index-lexical.npz"

    @property
    def _paths(self) -> tuple[Path, Path, Path]:
        return self.folder / "index.usearch", self.folder / "index-ids.npy", self.folder / "index.json"

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
                vectors = np.asarray(np.load(self._vectors_path, mmap_mode="r", allow_pickle=False))
                origins = [str(o) for o in meta["origins"]]
                lexical = LexicalIndex.load(self._lexical_path)
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
        self._lexical = lexical
        self.version += 1
        self._live = np.zeros(len(ids), dtype=bool)
        self._live[list(self._labels.values())] = True
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
        self._lexical.save(self._lexical_path.with_suffix(".tmp"), self._live)
        meta = {"head": self.head, "dim": self.dim, "model_version": self.model_version,
                "capacity": self._index.capacity, "count": len(self._labels),
                "deleted": sorted(self._deleted), "origins": self._origins, "layout": LAYOUT}
        os.replace(tmp_index, index_path)
        os.replace(ids_path.with_suffix(".tmp"), ids_path)
        os.replace(self._scores_path.with_suffix(".tmp"), self._scores_path)
        os.replace(self._vectors_path.with_suffix(".tmp"), self._vectors_path)
        os.replace(self._lexical_path.with_suffix(".tmp"), self._lexical_path)
        tmp_meta = meta_path.with_suffix(".tmp")
        tmp_meta.write_text(json.dumps(meta))
        os.replace(tmp_meta, meta_path)  # last: a crash before this leaves the old head, so we redo the diff
        with contextlib.suppress(FileNotFoundError):
            (self.folder / "index.hnsw").unlink()  # the graph of an older layout, rebuilt into this one
