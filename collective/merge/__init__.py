"""The collective merge: candidates from the index, comparators, the pure plan, applying it.

A pull (collective.exchange) reads what a peer learned, finds each new
memory's local candidates, asks a comparator about every pair, plans the
merge by wave interference and applies it in one transaction.
"""

from .apply import apply
from .candidates import CANDIDATES_PER_MEMORY, find_candidates, judged_candidates
from .comparators import Comparator, Decided, JudgeComparator, PairVerdict, PhaseComparator
from .plan import MergeContext, MergePlan, PlannedPair, effective_amplitude, plan

__all__ = ["apply", "CANDIDATES_PER_MEMORY", "find_candidates", "judged_candidates", "Comparator", "Decided",
           "JudgeComparator", "PairVerdict", "PhaseComparator", "MergeContext", "MergePlan", "PlannedPair",
           "effective_amplitude", "plan"]
