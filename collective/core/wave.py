"""Wave interference: the pure math of merging memories. No I/O.

A memory is a wave with amplitude (importance) and phase (stance). Similar
memories whose phases agree add up; opposed ones cancel and are disputed.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from ..model.enums import Relation

SIMILARITY_THRESHOLD = 0.6
CONSTRUCTIVE_MAX = math.pi / 4
DESTRUCTIVE_MIN = 3 * math.pi / 4
AMPLITUDE_CAP = 2.0
DISPUTE_PENALTY = 0.4

CONSTRUCTIVE, PARTIAL, DESTRUCTIVE, INDEPENDENT = (Relation.CONSTRUCTIVE, Relation.PARTIAL,
                                                  Relation.DESTRUCTIVE, Relation.INDEPENDENT)
RELATIONS = tuple(Relation)
RELATION_PHASE = {CONSTRUCTIVE: 0.0, PARTIAL: math.pi / 2, DESTRUCTIVE: math.pi}


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


def phase_difference(phi_a: float, phi_b: float) -> float:
    """|phi_a - phi_b| mod 2pi, folded into [0, pi]."""
    d = abs(phi_a - phi_b) % (2 * math.pi)
    return min(d, 2 * math.pi - d)


def classify(similarity: float, dphi: float, *, threshold: float = SIMILARITY_THRESHOLD) -> str:
    """The four-way rule of the merge: similarity says same topic, phase says agree."""
    if similarity < threshold:
        return INDEPENDENT
    if dphi < CONSTRUCTIVE_MAX:
        return CONSTRUCTIVE
    if dphi > DESTRUCTIVE_MIN:
        return DESTRUCTIVE
    return PARTIAL


def superpose(a1: float, phi1: float, a2: float, phi2: float, *, cap: float = AMPLITUDE_CAP) -> tuple[float, float]:
    """Amplitude and phase of two waves added: A^2 = a1^2 + a2^2 + 2 a1 a2 cos(dphi)."""
    dphi = phi1 - phi2
    squared = a1 * a1 + a2 * a2 + 2 * a1 * a2 * math.cos(dphi)
    amplitude = min(math.sqrt(max(squared, 0.0)), cap)
    return amplitude, circular_mean([phi1, phi2], [a1, a2])


def circular_mean(phases: Sequence[float], weights: Iterable[float] | None = None) -> float:
    """Weighted mean angle in [0, 2pi); well-defined across the 0/2pi seam."""
    w = list(weights) if weights is not None else [1.0] * len(phases)
    s = sum(wi * math.sin(p) for wi, p in zip(w, phases))
    c = sum(wi * math.cos(p) for wi, p in zip(w, phases))
    if abs(s) < 1e-12 and abs(c) < 1e-12:
        return wrap(float(phases[0])) if phases else 0.0
    return wrap(math.atan2(s, c))


def wrap(angle: float) -> float:
    """angle mod 2pi in [0, 2pi): a tiny negative angle % 2pi rounds to 2pi itself."""
    value = angle % (2 * math.pi)
    return value if value < 2 * math.pi else 0.0


def blend(v1: np.ndarray, a1: float, v2: np.ndarray, a2: float) -> np.ndarray:
    """Normalised amplitude-weighted sum of two unit vectors."""
    total = a1 * np.asarray(v1, dtype=np.float32) + a2 * np.asarray(v2, dtype=np.float32)
    norm = float(np.linalg.norm(total))
    if norm == 0.0:
        return np.asarray(v1, dtype=np.float32)
    return (total / norm).astype(np.float32)


def dispute_penalty(amplitude: float, similarity: float, *, penalty: float = DISPUTE_PENALTY) -> float:
    """Destructive interference weakens both sides: a *= (1 - penalty * s)."""
    return amplitude * max(0.0, 1.0 - penalty * similarity)


def kuramoto_order(phases: Sequence[float]) -> float:
    """|mean of e^{i phi}|: 1 when all phases agree, ~0 when spread."""
    if not phases:
        return 0.0
    s = sum(math.sin(p) for p in phases)
    c = sum(math.cos(p) for p in phases)
    return math.hypot(s, c) / len(phases)
