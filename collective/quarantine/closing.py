"""Disputes about retracted memories close themselves.

A case asks a person which of two claims stands; once a side's origin retracted its
claim there is nothing left to ask. The case is closed, not by a write (every holder
would write it at another moment, and one unsigned row could close any case), but as a
status every holder derives alike from rows its origin signed: the retraction is part of
a memory's signed claim. The case row stays, and so does its history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model import Case
from ..model.refs import QUARANTINE_BRANCH

if TYPE_CHECKING:
    from ..store.port import Repository
    from ..store.tables import Tables

CLOSED = "closed"
RETRACTED = "retracted"  # the reason: a side's origin retracted it


def closed_cases(repo: Repository, tables: Tables, cases: Iterable[Case]) -> dict[str, list[str]]:
    """The open cases a retraction closed: case id -> the retracted memories of its pair.
    A memory not held here is read from the shared branch, where it travels with its case."""
    open_ = [c for c in cases if not c.resolved]
    ids = sorted({m for c in open_ for m in c.pair})
    if not ids:
        return {}
    rows = {r["id"]: r["retracted"] for r in tables.memories.rows_by_id(ids, columns=("id", "retracted"))}
    missing = [m for m in ids if m not in rows]
    if missing and QUARANTINE_BRANCH in repo.branches():
        rows.update({r["id"]: r["retracted"] for r in tables.memories.rows_by_id(
            missing, as_of=QUARANTINE_BRANCH, columns=("id", "retracted"))})
    out = {}
    for case in open_:
        gone = [m for m in case.pair if rows.get(m)]
        if gone:
            out[case.id] = gone
    return out
