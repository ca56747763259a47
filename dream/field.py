"""The memories a dream works on, as arrays: what the stages read and change."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from collective.core import scoring
from collective.model import blob_to_vector, parse_time


def live(row: Mapping) -> bool:
    """Recallable and standing: neither retracted, absorbed into another, nor refuted."""
    return not row["retracted"] and row["absorbed_into"] is None and not row.get("refuted_by")


@dataclass
class Field:
    """Selected memory rows (sorted by id) and their mutable amplitude, phase and layer."""

    rows: list[dict]
    vectors: np.ndarray
    amplitude: np.ndarray
    phase: np.ndarray
    layer: np.ndarray
    strength: np.ndarray              # recall strength when the dream began
    own: np.ndarray
    fading: np.ndarray = field(default_factory=lambda: np.zeros(0))  # what fading weighed then (scoring.fading)
    start_amplitude: np.ndarray = field(default_factory=lambda: np.zeros(0))
    position: dict[str, int] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return [r["id"] for r in self.rows]

    def __len__(self) -> int:
        return len(self.rows)


def load(rows: Sequence[dict], *, agent_id: str, dim: int, trust_scores: Mapping[str, float],
         half_lives: Mapping[str, float], now: float) -> Field:
    rows = sorted((r for r in rows if live(r) and r["dim"] == dim), key=lambda r: r["id"])
    vectors = np.stack([blob_to_vector(r["vector"]) for r in rows]) if rows else np.zeros((0, dim), np.float32)
    amplitude = np.array([r["amplitude"] for r in rows], dtype=np.float64)
    return Field(rows=rows, vectors=vectors, amplitude=amplitude, start_amplitude=amplitude.copy(),
                 phase=np.array([r["phase"] for r in rows], dtype=np.float64),
                 layer=np.array([r["layer"] for r in rows], dtype=np.int64),
                 strength=scoring.row_strengths(rows, trust_scores, now, half_lives),
                 fading=scoring.row_fading(rows, now, half_lives),
                 own=np.array([r["origin_agent"] == agent_id for r in rows], dtype=bool),
                 position={r["id"]: i for i, r in enumerate(rows)})


def _amplitude_ratio(field: Field) -> np.ndarray:
    """Each amplitude as the stages have left it, over what it was when the dream began."""
    return np.divide(field.amplitude, field.start_amplitude, out=np.ones(len(field)),
                     where=field.start_amplitude > 0)


def current_strength(field: Field) -> np.ndarray:
    """Recall strength with the amplitudes as the stages have left them."""
    return field.strength * _amplitude_ratio(field)


def current_fading(field: Field) -> np.ndarray:
    """What fading weighs (amplitude * recency; inf while disputed) with the amplitudes as the
    stages have left them."""
    return field.fading * _amplitude_ratio(field)


def ages_days(rows: Sequence[dict], now: float) -> np.ndarray:
    return np.array([(now - parse_time(r["created_at"]).timestamp()) / 86400.0 for r in rows])
