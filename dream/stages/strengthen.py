"""Strengthen: fold what recall counted (memories returned together) into the stored
amplitude, S_new = min(S * prod(1 + 0.02 (k - 1)), S * cap), under the amplitude ceiling.
Recall never commits; the dream does."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from collective.core import scoring

from ..field import Field


def strengthen(field: Field, coaccess: Mapping[str, tuple[int, float]], *, cap: float,
               ceiling: float) -> dict[str, tuple[int, float]]:
    """Raise the amplitude of each co-accessed memory in the field (in place); returns what
    was folded, per memory, so the counter can give it back."""
    folded = {mid: coaccess[mid] for mid in field.position if mid in coaccess and coaccess[mid][0] > 0}
    if folded:
        at = np.array([field.position[mid] for mid in folded])
        factor = np.array([f for _, f in folded.values()])
        field.amplitude[at] = scoring.fold_coaccess(field.amplitude[at], factor, cap=cap, ceiling=ceiling)
    return folded
