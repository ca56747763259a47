"""One recall's view of the index: how relevant each memory is to the query, exactly or at most.

A memory's relevance mixes its meaning and its words (core.scoring) and what it borrows from
the memories stored beside it (core.context). Exact relevance costs a cosine; a bound costs
only the lexical share, which recall has for every memory: a memory the ANN search did not
reach has a cosine at most the search's last one.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..core import context, scoring
from ..index.hnsw import VectorIndex
from .results import Candidates


class Query:
    """Used as a context: its arrays by label are borrowed from the index and given back clean."""

    def __init__(self, index: VectorIndex, text: str, vector: np.ndarray, *, counts: np.ndarray,
                 strength: Callable[[np.ndarray], np.ndarray], faded: Callable[[np.ndarray], np.ndarray] | None):
        self.index = index
        self.vector = vector
        self.lexical = index.spare.borrow("lexical", 0.0, index.label_count)  # by label
        self.worded = index.lexical_scores(self.lexical, text)  # the labels holding a query word
        self.before, self.after = index.neighbours()
        self.counts = counts
        self.strength = strength
        self.faded = faded  # which of some labels are faded (core.scoring.fading); None: none left out
        self._cosines = index.spare.borrow("cosines", np.nan, index.label_count)  # by label, once computed or found
        self._known: list[np.ndarray] = []  # the labels whose cosine is written

    def __enter__(self) -> "Query":
        return self

    def __exit__(self, *exc) -> None:
        if self._known:
            self._cosines[np.concatenate(self._known)] = np.nan
        self.lexical[self.worded] = 0.0
        self.index.spare.give_back("cosines", self._cosines)
        self.index.spare.give_back("lexical", self.lexical)

    def found(self, labels: np.ndarray, sims: np.ndarray) -> None:
        """Cosines an ANN search returned: exact, kept for what follows."""
        self._cosines[labels] = sims
        self._known.append(labels)

    def cosines(self, labels: np.ndarray) -> np.ndarray:
        """The exact cosine of each label, each computed once per query."""
        todo = labels[np.isnan(self._cosines[labels])]
        if len(todo):
            todo = np.unique(todo)
            self._cosines[todo] = self.index.similarities(self.vector, todo)
            self._known.append(todo)
        return self._cosines[labels]

    def scored(self, labels: np.ndarray, *, borrowing: bool = True) -> Candidates:
        """Candidates for `labels` (faded ones left out unless asked for), with what each borrows
        from its neighbours (or, without `borrowing`, their own relevance alone: a lower bound)."""
        if self.faded is not None:
            labels = labels[~self.faded(labels)]
        strength = self.strength(labels)
        borrowed = np.zeros(len(labels))
        if borrowing:
            n = len(labels)
            beside = self.own_relevance(np.concatenate([self.before[labels], self.after[labels]]))
            borrowed = context.borrowed(beside[:n], beside[n:])
        return Candidates.of(labels, self.cosines(labels), self.lexical[labels], borrowed, strength,
                             self.counts[labels])

    def own_relevance(self, labels: np.ndarray) -> np.ndarray:
        """Each label's relevance by its own meaning and words (0 for -1, no memory)."""
        out = np.zeros(len(labels))
        real = labels[labels >= 0]
        out[labels >= 0] = scoring.relevance(self.cosines(real), self.lexical[real])
        return out

    def beside(self, labels: np.ndarray) -> np.ndarray:
        """The neighbours of `labels` (those that have one, repeats possible)."""
        near = np.concatenate([self.before[labels], self.after[labels]])
        return near[near >= 0]

    def borrowers(self, pools: tuple[np.ndarray, ...], last: float, *, lend_at: float) -> np.ndarray:
        """The only memories that may borrow a relevance of `lend_at` or more: the neighbours of
        those in `pools` relevant enough to lend it (a cosine not yet known at most `last`)."""
        lend_from = lend_at / context.CONTEXT_SHARE
        lenders = [pool[self.at_most(pool, last) >= lend_from] for pool in pools]
        return np.unique(self.beside(np.concatenate(lenders)))

    def bound(self, labels: np.ndarray, last: float) -> np.ndarray:
        """At most each label's relevance, borrowing included, when any cosine not yet known
        is at most `last` (the least an ANN search returned)."""
        return context.in_context(self.at_most(labels, last), self.at_most(self.before[labels], last),
                                  self.at_most(self.after[labels], last))

    def at_most(self, labels: np.ndarray, last: float) -> np.ndarray:
        """At most each label's own relevance (0 for -1), a cosine not yet known being at most `last`."""
        real = labels >= 0
        known = self._cosines[labels[real]]
        out = np.zeros(len(labels))
        out[real] = scoring.relevance(np.where(np.isnan(known), last, known), self.lexical[labels[real]])
        return out
