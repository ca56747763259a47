"""Which of an agent's own live memories a memory it just stored contradicts.

The same judge as the merge, on the same candidates a pull would ask about: the
index's nearest neighbours at or above the merge's similarity threshold, a handful
of pairs. A store only says so (`contradicts`); the writer decides what to do about
it (store with `supersedes`, or leave both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..core import wave
from ..model import Memory
from .candidates import find_candidates

if TYPE_CHECKING:
    from ..index import VectorIndex
    from ..store.tables import MemoryTable
    from .comparators import Comparator


def contradicted(memory: Memory, index: VectorIndex, memories: MemoryTable, comparator: Callable[[], Comparator], *,
                 owner: str, threshold: float) -> list[str]:
    """The ids of `owner`'s live memories near `memory` that the comparator judges
    destructive, most similar first. The comparator is made only when a pair is to be
    judged: a store that meets none never loads the judge."""
    found = find_candidates(index, memories, [memory], threshold).get(memory.id, [])
    near = [(c, s) for c, s in found if c.id != memory.id and _live_own(c, owner)]
    if not near:
        return []
    judge = comparator()
    verdicts = [(c, judge.relate(c, memory, s)) for c, s in sorted(near, key=lambda cs: -cs[1])]
    return [c.id for c, v in verdicts if v.relation == wave.DESTRUCTIVE]


def _live_own(memory: Memory, owner: str) -> bool:
    """What its owner believes now: its own, neither retracted, absorbed nor refuted."""
    return (memory.origin_agent == owner and not memory.retracted and memory.absorbed_into is None
            and not memory.refuted_by)
