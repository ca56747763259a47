"""Stance -> phase: explicit values win over what the wording says.

Phase 0 affirms, pi denies, pi/2 is uncertain. Without an explicit phase or
stance, an estimator reads the text (the default one is
`collective.judge.stance.estimate`; any `str -> radians` callable will do).
Pure, no I/O.
"""

from __future__ import annotations

import math
from typing import Protocol

from ..errors import BadInput
from ..model import STANCES, validate_phase, validate_stance

AFFIRM, UNCERTAIN, DENY = 0.0, math.pi / 2, math.pi


class PhaseEstimator(Protocol):
    def __call__(self, text: str) -> float: ...


def resolve(text: str, *, estimator: PhaseEstimator, phase: float | None = None,
            stance: str | None = None) -> tuple[float, str | None]:
    """(phase, explicit stance label or None). Explicit input beats the estimator."""
    if phase is not None and stance is not None:
        raise BadInput("phase", "give --phase or --stance, not both")
    if stance is not None:
        return validate_stance(stance), stance
    if phase is not None:
        value = validate_phase(phase)
        return value, "explicit"
    return float(estimator(text)) % (2 * math.pi), None


def stance_offset(text: str, phase: float, stance: str | None, estimator: PhaseEstimator) -> float:
    """How far an explicit stance turns the text's own polarity (0 when estimated).

    The judge compares texts; a writer who stored "X is safe" with stance deny
    means "not X is safe", so the pair's phase difference shifts by this much.
    """
    if stance is None:
        return 0.0
    return phase - float(estimator(text))


__all__ = ["AFFIRM", "UNCERTAIN", "DENY", "STANCES", "PhaseEstimator", "resolve", "stance_offset"]
