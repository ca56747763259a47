"""The collective merge: candidates from the index, comparators, the pure plan, applying it.

A pull (collective.exchange) reads what a peer learned, finds each new
memory's local candidates, asks a comparator about every pair, plans the
merge by wave interference and applies it in one transaction.

The names below are loaded on first use, so a store that only asks
`merge.contradictions` or `merge.candidates` does not load the judge.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .apply import apply
    from .candidates import CANDIDATES_PER_MEMORY, find_candidates, judged_candidates
    from .comparators import Comparator, Decided, JudgeComparator, PairVerdict, PhaseComparator
    from .plan import MergeContext, MergePlan, PlannedPair, effective_amplitude, plan

_EXPORTS = {
    "apply": "apply",
    "CANDIDATES_PER_MEMORY": "candidates", "find_candidates": "candidates", "judged_candidates": "candidates",
    "Comparator": "comparators", "Decided": "comparators", "JudgeComparator": "comparators",
    "PairVerdict": "comparators", "PhaseComparator": "comparators",
    "MergeContext": "plan", "MergePlan": "plan", "PlannedPair": "plan", "effective_amplitude": "plan", "plan": "plan",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
