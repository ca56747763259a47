"""Stance -> phase: explicit values, and the default estimator for plain text.

Phase 0 affirms, pi denies, pi/2 is uncertain. Without an explicit phase or
stance, `estimate` reads the polarity of one sentence: the parity of negation
cues and negative-valence words ("not safe" and "dangerous" deny, "no danger"
affirms), and hedges ("might", "probably", "unclear") make it uncertain.
It is a word-level heuristic; its limits are in the README. Pure, no I/O.
"""

from __future__ import annotations

import math
import re
from typing import Protocol

from ..errors import BadInput
from ..model import STANCES, validate_phase, validate_stance

AFFIRM, UNCERTAIN, DENY = 0.0, math.pi / 2, math.pi

NEGATIONS = frozenset("""
not no never none nothing nobody nowhere neither nor cannot without lacks lacking
absent fails failed isn't aren't wasn't weren't doesn't don't didn't hasn't haven't
hadn't won't wouldn't can't couldn't shouldn't mustn't
""".split())

# Words that carry a negative judgement of their own: "no <word>" is positive.
NEGATIVE_VALENCE = frozenset("""
unsafe dangerous danger hazard hazardous risk risky unsafe broken failure faulty fault
leak leaks leaking leaked damaged damage defective malfunction malfunctioning error errors
problem problems issue issues toxic contaminated contamination unstable degraded offline
down failing false wrong incorrect invalid unreliable insufficient unavailable
""".split())

HEDGES = frozenset("""
might may maybe perhaps possibly probably likely unlikely could seems seem seemed appears
apparently uncertain unclear unconfirmed suspect suspected presumably allegedly roughly
""".split())

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


class PhaseEstimator(Protocol):
    def __call__(self, text: str) -> float: ...


def estimate(text: str) -> float:
    """Phase of one statement from its wording alone."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    if any(w in HEDGES for w in words):
        return UNCERTAIN
    odd = sum(1 for w in words if w in NEGATIONS or w in NEGATIVE_VALENCE) % 2
    return DENY if odd else AFFIRM


def resolve(text: str, *, phase: float | None = None, stance: str | None = None,
            estimator: PhaseEstimator = estimate) -> tuple[float, str | None]:
    """(phase, explicit stance label or None). Explicit input beats the estimator."""
    if phase is not None and stance is not None:
        raise BadInput("phase", "give --phase or --stance, not both")
    if stance is not None:
        return validate_stance(stance), stance
    if phase is not None:
        value = validate_phase(phase)
        return value, "explicit"
    return float(estimator(text)) % (2 * math.pi), None


def stance_offset(text: str, phase: float, stance: str | None, estimator: PhaseEstimator = estimate) -> float:
    """How far an explicit stance turns the text's own polarity (0 when estimated).

    The judge compares texts; a writer who stored "X is safe" with stance deny
    means "not X is safe", so the pair's phase difference shifts by this much.
    """
    if stance is None:
        return 0.0
    return phase - float(estimator(text))


__all__ = ["AFFIRM", "UNCERTAIN", "DENY", "STANCES", "estimate", "resolve", "stance_offset"]
