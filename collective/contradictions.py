"""Which of an agent's own live memories a memory it just stored contradicts.

The same judge as the merge, on the same candidates a pull would ask about: the
index's nearest neighbours at or above the merge's similarity threshold, a handful
of pairs. A store only says so (`contradicts`); the writer decides what to do about
it (store with `supersedes`, or leave both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from .core import wave
from .model import Memory, blob_to_vector

if TYPE_CHECKING:  # the merge's package loads the judge: a store that meets no pair never does
    from .index import VectorIndex
    from .merge.comparators import Comparator
    from .store.tables import MemoryTable

NEAREST = 8  # as many as a pull asks about for one memory (merge.candidates)
# Up to this many own memories, a process with no index loaded reads and scans them
# instead of loading the index: 5,000 rows read in 26 ms here, while the graph's library
# alone took 108 ms to import (a `cmem store` is one process per store).
SCAN_AT_MOST = 5000
_SCANNED = ("id", "vector", "dim", "model_version", "absorbed_into", "refuted_by")


def contradicted(memory: Memory, index: VectorIndex | None, memories: MemoryTable,
                 comparator: Callable[[], Comparator], *, owner: str, threshold: float) -> list[str]:
    """The ids of `owner`'s live memories near `memory` that the comparator judges
    destructive, most similar first: found by the index, or (None) by a scan of the
    owner's memories. The comparator is made only when a pair is to be judged: a store
    that meets none never loads the judge."""
    ids = _near_by_index(memory, index, threshold) if index is not None else _near_by_scan(memory, memories, owner,
                                                                                          threshold)
    rows = memories.by_id(sorted(ids))
    near = [(c, float(np.dot(c.vector, memory.vector))) for c in rows.values() if _live_own(c, owner)]
    near = [(c, s) for c, s in near if s >= threshold]  # the exact cosine, as a pull takes it
    if not near:
        return []
    judge = comparator()
    verdicts = [(c, judge.relate(c, memory, s)) for c, s in sorted(near, key=lambda cs: -cs[1])]
    return [c.id for c, v in verdicts if v.relation == wave.DESTRUCTIVE]


def _near_by_index(memory: Memory, index: VectorIndex, threshold: float) -> list[str]:
    if not len(index):
        return []
    hits = index.search_many(memory.vector[None, :], NEAREST)[0]
    return [mid for mid, s in hits if s >= threshold and mid != memory.id]


def _near_by_scan(memory: Memory, memories: MemoryTable, owner: str, threshold: float) -> list[str]:
    rows = [r for r in memories.rows_where({"origin_agent": owner, "retracted": 0}, columns=_SCANNED)
            if r["id"] != memory.id and r["absorbed_into"] is None and not r["refuted_by"]
            and r["dim"] == memory.dim and r["model_version"] == memory.model_version]
    if not rows:
        return []
    sims = np.stack([blob_to_vector(r["vector"]) for r in rows]) @ memory.vector
    nearest = np.argsort(-sims)[:NEAREST]
    return [rows[i]["id"] for i in nearest if sims[i] >= threshold]


def _live_own(memory: Memory, owner: str) -> bool:
    """What its owner believes now: its own, neither retracted, absorbed nor refuted."""
    return (memory.origin_agent == owner and not memory.retracted and memory.absorbed_into is None
            and not memory.refuted_by)
