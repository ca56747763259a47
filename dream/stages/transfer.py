"""Transfer: memories move to deeper layers as they age (layer = how many of the
configured ages, in days, a memory has passed)."""

from __future__ import annotations

import numpy as np

from ..field import Field, ages_days


def transfer(field: Field, *, layer_days: tuple[float, ...], now: float) -> int:
    """Set each memory's layer from its age (in place); returns how many moved."""
    if not len(field):
        return 0
    ages = ages_days(field.rows, now)
    layers = np.searchsorted(np.asarray(sorted(layer_days)), ages, side="right").astype(np.int64)
    moved = int(np.count_nonzero(layers != field.layer))
    field.layer = layers
    return moved
