"""Context: a memory is also found through the memories stored beside it. Pure.

A turn of a conversation rarely stands alone: "a beagle mix, maybe some basset" answers the
question asked just before it, and only that question holds the words a later query uses.
Memories one origin stored one after the other, at most GAP_S apart, are neighbours, and a
memory is at least CONTEXT_SHARE as relevant as its more relevant neighbour:

    relevance = max(own relevance, CONTEXT_SHARE * max(relevance of the one before, of the one after))

The share is below 1, so a memory never outranks the neighbour it borrows from, and whatever
bounds the relevance of memories a search has not reached bounds what they borrow too: recall
stays exact (recall/service.py). Chosen on the development sets of
scripts/bench_recall_quality.py (docs/reference/benchmarks.md): on the development chat it
put 4 more answers of 100 in the top 10, and it moved nothing on the FAQ passages, where an
additive share (own + 0.3 x neighbour's) cost 3 points of MRR.
"""

from __future__ import annotations

import numpy as np

CONTEXT_SHARE = 0.7
GAP_S = 1800.0  # stored further apart than this (seconds), two memories are not neighbours


def neighbours(labels: np.ndarray, origins: np.ndarray, created: np.ndarray, size: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """For labels 0..size-1: the label stored just before and just after each of `labels` by
    the same origin, at most GAP_S apart (-1 for none and for labels not given). `origins`
    and `created` (epoch seconds) are the labels'; memories stored together share their time
    and follow each other in the order of their labels."""
    before = np.full(size, -1, dtype=np.int64)
    after = np.full(size, -1, dtype=np.int64)
    if len(labels) < 2:
        return before, after
    order = np.lexsort((labels, created, origins))
    ranked, by_origin, times = labels[order], origins[order], created[order]
    beside = (by_origin[1:] == by_origin[:-1]) & (np.diff(times) <= GAP_S)
    before[ranked[1:][beside]] = ranked[:-1][beside]
    after[ranked[:-1][beside]] = ranked[1:][beside]
    return before, after


def borrowed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """What a memory takes from its neighbours, given their relevance (0 for none)."""
    return CONTEXT_SHARE * np.maximum(before, after)


def lent(relevance: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """What each label borrows, given every label's own `relevance` and its neighbours as
    `neighbours` gives them (-1: none, lending nothing)."""
    own = np.append(relevance, 0.0)  # label -1 reads the 0 at the end
    return borrowed(own[before], own[after])


def in_context(relevance: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """A memory's relevance with what it borrows from its neighbours."""
    return np.maximum(relevance, borrowed(before, after))
