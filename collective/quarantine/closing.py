"""Disputes with nothing left to decide close themselves.

A case asks a person which of two claims stands. Once a side's origin retracted its
claim, or a side was a squatter's (signed under an agent's name by a key the roster
does not name for it, and let go: exchange/roster_keys.py), there is nothing left to
ask. The case is closed, not by a write (every holder would write it at another moment,
and one unsigned row could close any case), but as a status every holder derives alike
from signed rows: the retraction is part of a memory's signed claim, and the roster's
versions are signed by its owners. The case row stays, and so does its history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model import Case, Memory
from ..model.enums import CLOSED
from ..model.refs import QUARANTINE_BRANCH
from ..reports.review import LET_GO, RETRACTED, closed_because
from ..roster import keys, service as roster

if TYPE_CHECKING:
    from ..store.port import Repository
    from ..store.tables import Tables

__all__ = ["CLOSED", "LET_GO", "RETRACTED", "closed_because", "closed_cases"]



def closed_cases(repo: Repository, tables: Tables, cases: Iterable[Case]) -> dict[str, dict[str, str]]:
    """The open cases with nothing left to decide: case id -> {memory of its pair: why}
    (RETRACTED or LET_GO). A memory not held here is read from the shared branch, where it
    travels with its case."""
    open_ = [c for c in cases if not c.resolved]
    ids = sorted({m for c in open_ for m in c.pair})
    if not ids:
        return {}
    columns = ("id", "retracted")
    rows = {r["id"]: r["retracted"] for r in tables.memories.rows_by_id(ids, columns=columns)}
    missing = [m for m in ids if m not in rows]
    why = {m: RETRACTED for m, retracted in rows.items() if retracted}
    if missing and QUARANTINE_BRANCH in repo.branches():
        why.update(_unheld(tables, tables.memories.by_id(missing, as_of=QUARANTINE_BRANCH).values()))
    return {c.id: {m: why[m] for m in c.pair if m in why} for c in open_ if any(m in why for m in c.pair)}


def _unheld(tables: Tables, memories: Iterable[Memory]) -> dict[str, str]:
    """Why each memory the shared branch holds, and this holder does not, leaves nothing to
    decide: retracted, or (on a roster) signed by none of its origin's keys, a squatter's
    this holder let go."""
    following = roster.held(tables)
    out = {}
    for memory in memories:
        if memory.retracted:
            out[memory.id] = RETRACTED
        elif following is not None and not keys.signed_by_named_key(tables, memory, following):
            out[memory.id] = LET_GO
    return out

