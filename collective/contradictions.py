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
from .model import Memory

if TYPE_CHECKING:  # the merge's package loads the judge: a store that meets no pair never does
    from .index import VectorIndex
    from .merge.comparators import Comparator
    from .store.tables import MemoryTable

NEAREST = 8  # as many as a pull asks about for one memory (merge.candidates)


def contradicted(memory: Memory, index: VectorIndex, memories: MemoryTable, comparator: Callable[[], Comparator], *,
                 owner: str, threshold: float) -> list[str]:
    """The ids of `owner`'s live memories near `memory` that the comparator judges
    destructive, most similar first. The comparator is made only when a pair is to be
    judged: a store that meets none never loads the judge."""
    if not len(index):
        return []
    hits = index.search_many(memory.vector[None, :], NEAREST)[0]
    rows = memories.by_id(sorted(mid for mid, s in hits if s >= threshold and mid != memory.id))
    near = [(c, float(np.dot(c.vector, memory.vector))) for c in rows.values() if _live_own(c, owner)]
    near = [(c, s) for c, s in near if s >= threshold]  # the exact cosine, as a pull takes it
    if not near:
        return []
    judge = comparator()
    verdicts = [(c, judge.relate(c, memory, s)) for c, s in sorted(near, key=lambda cs: -cs[1])]
    return [c.id for c, v in verdicts if v.relation == wave.DESTRUCTIVE]


def _live_own(memory: Memory, owner: str) -> bool:
    """What its owner believes now: its own, neither retracted, absorbed nor refuted."""
    return (memory.origin_agent == owner and not memory.retracted and memory.absorbed_into is None
            and not memory.refuted_by)
