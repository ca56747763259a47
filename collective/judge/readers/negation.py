"""Negation scope: how many negators reach each token ("not ... without X" negates X twice)."""

from __future__ import annotations

from .. import lexicon as L
from .scan import Scan


def read_scope(s: Scan) -> None:
    """Count, for each token, the negators whose scope covers it (its parity is what counts).

    A negator reaches at most six tokens forward, stopping at punctuation, a
    conjunction, or a preposition that opens a new phrase."""
    low, kind, n = s.low, s.kind, s.n
    negcount = [0] * n
    negset = set(s.negators)
    scopes: dict[int, list[int]] = {}
    for i in reversed(s.negators):  # inner scopes first: "not ... without X" negates X twice
        k = i + 1
        steps = 0
        scope: list[int] = []
        scopes[i] = scope
        while k < n and steps < 6:
            w = low[k]
            if k in negset:
                scope.extend(scopes.get(k, ()))
                break
            if kind[k] == "p" and w in L.CLAUSE_PUNCTUATION or w in L.CLAUSE_BREAKS:
                break
            if w in L.SCOPE_STOPS and w != "of" and steps > 0:
                break  # "did not trigger during the test": the test is not negated
            scope.append(k)
            k += 1
            steps += 1
    for scope in scopes.values():
        for k in scope:
            negcount[k] += 1
    s.negcount = negcount
