"""The default stance estimator: the phase a statement's wording gives it.

Phase 0 affirms, pi denies, pi/2 is uncertain. It reads the polarity of one
sentence: the parity of negation cues and negative-valence words ("not safe"
and "dangerous" deny, "no danger" affirms), and hedges ("might", "probably",
"unclear") make it uncertain. A word-level heuristic; its limits are in
docs/concepts/judge.md. Pure, no I/O; the word lists live in the lexicon.
"""

from __future__ import annotations

import re

from ..core.phase import AFFIRM, DENY, UNCERTAIN
from . import lexicon as L

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def estimate(text: str) -> float:
    """Phase of one statement from its wording alone."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    if any(w in L.STANCE_HEDGES for w in words):
        return UNCERTAIN
    odd = sum(1 for w in words if w in L.STANCE_NEGATIONS or w in L.STANCE_NEGATIVE_VALENCE) % 2
    return DENY if odd else AFFIRM
