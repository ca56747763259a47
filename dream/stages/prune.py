"""Prune: memories that have faded below a strength are faded further and marked, never
deleted. A foreign memory is only ever advised (its origin decides); a memory with live
descendants (lineage: a live memory names it as a parent) is spared, so it stays in recall."""

from __future__ import annotations

import json
from dataclasses import dataclass, field as dataclass_field
from typing import Iterable

import numpy as np

from ..field import Field, current_fading, live

FADED, ADVISED = "faded", "advised: foreign memory"


@dataclass
class Pruned:
    faded: list[int] = dataclass_field(default_factory=list)
    advised: list[int] = dataclass_field(default_factory=list)
    spared: list[int] = dataclass_field(default_factory=list)

    def hints(self, field: Field, run_id: str, strength: np.ndarray) -> list[dict]:
        return [{"run_id": run_id, "memory_id": field.rows[i]["id"], "reason": reason,
                 "strength": float(strength[i])}
                for reason, chosen in ((FADED, self.faded), (ADVISED, self.advised)) for i in chosen]


def with_live_descendants(rows: Iterable[dict]) -> set[str]:
    """Ids that a live memory names among its parents."""
    out: set[str] = set()
    for row in rows:
        if live(row) and row["parents"] not in (None, "", "[]"):
            out.update(json.loads(row["parents"]) if isinstance(row["parents"], str) else row["parents"])
    return out


def candidates(field: Field, *, below: float, faded_below: float) -> np.ndarray:
    """Positions of memories that recall still returns whose amplitude * recency is under
    `below`. As for fading, trust is no part of it (a peer's low score is no reason to advise
    on its memories), and a memory under an open dispute is never weak: its dispute penalty
    is a verdict's to give back or confirm (core.scoring.fading)."""
    fading = current_fading(field)
    return np.flatnonzero((fading < below) & (fading >= faded_below))


def prune(field: Field, chosen: np.ndarray, parents_of_live: set[str], *, fade: float) -> Pruned:
    """Fade the chosen own memories without live descendants (in place)."""
    out = Pruned()
    for i in chosen.tolist():
        if field.rows[i]["id"] in parents_of_live:
            out.spared.append(i)
        elif not field.own[i]:
            out.advised.append(i)
        else:
            field.amplitude[i] *= fade
            out.faded.append(i)
    return out
