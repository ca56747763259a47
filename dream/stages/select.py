"""Select: the memories a run works on. A full run takes every live memory; an
incremental run takes those changed since the last run (by Dolt diff from the last
dream's commit to the head) or recalled together since, plus their ANN neighbours."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from collective.model import blob_to_vector


@dataclass(frozen=True)
class Selection:
    ids: list[str]
    changed: int
    neighbours: int
    full: bool
    changed_ids: frozenset[str] = frozenset()  # in an incremental run: what changed (the rest are neighbours)


def everything(memory_ids: list[str]) -> Selection:
    return Selection(sorted(memory_ids), len(memory_ids), 0, True)


def changed_since(repo, table: str, since: str, head: str) -> set[str]:
    """Memories added or modified between two commits."""
    return {change.new["id"] for change in repo.diff(since, head, table) if change.new is not None}


def with_neighbours(changed_rows: list[dict], index, *, neighbours: int, dim: int) -> Selection:
    """The changed memories and each one's ANN neighbours."""
    rows = [r for r in changed_rows if r["dim"] == dim]
    chosen = {r["id"] for r in rows}
    if rows and len(index):
        vectors = np.stack([blob_to_vector(r["vector"]) for r in rows])
        for found in index.search_many(vectors, neighbours + 1, ef=max(2 * neighbours, 16)):
            chosen.update(mid for mid, _ in found)
    return Selection(sorted(chosen), len(rows), len(chosen) - len(rows), False, frozenset(r["id"] for r in rows))
