"""Flags: hedges ("might", "not sure"), qualifiers ("only", "except"), the
negators' positions, and retractions ("scratch that", "the report was wrong")."""

from __future__ import annotations

import re

from .. import lexicon as L
from ..text import HEDGE_PHRASE_TOKENS, NEGATOR_PHRASE_TOKENS, QUALIFIER_PHRASE_TOKENS
from .scan import Scan

_FLAG_WORDS = (HEDGE_PHRASE_TOKENS | L.HEDGES | QUALIFIER_PHRASE_TOKENS | L.QUALIFIERS | L.CLAUSE_QUALIFIERS
               | L.NEGATORS | NEGATOR_PHRASE_TOKENS)  # every word `read_flags` looks at

_RETRACT_STRONG = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in L.RETRACTION_STRONG) + r")(?!\w)")
_RETRACT_WEAK = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in L.RETRACTION_WEAK) + r")\b")
_RETRACT_IMPERATIVE = re.compile(r"(?:please |kindly )?(?:ignore|disregard|delete|drop|forget) (?:the|my|that|this|our|what|about|any|all)\b")
_WORD = re.compile(r"\w+")
_STRONG_KEYS = frozenset(max(_WORD.findall(p), key=len) for p in L.RETRACTION_STRONG)  # the rarest word of each
_WEAK_KEYS = frozenset(max(_WORD.findall(p), key=len) for p in L.RETRACTION_WEAK)
_IMPERATIVE_FIRST = frozenset({"please", "kindly", "ignore", "disregard", "delete", "drop", "forget"})  # words _RETRACT_IMPERATIVE can start with
_RETRACT_NOT_AFTER = re.compile(r"\b(?:nothing|no|not|without)\s+(?:\w+\s+)?(?:wrong|errors?|mistakes?|glitch\w*)\b")


def read_flags(s: Scan) -> None:
    """Hedged, qualified, where the main clause ends, the negators, and whether the text retracts."""
    low, kind, used, n, start = s.low, s.kind, s.used, s.n, s.start
    hedged = qualified = False
    clause_qual_at = n  # first token of a restricting clause
    negators: list[int] = []
    for i in [i for i in range(start, n) if low[i] in _FLAG_WORDS]:
        w = low[i]
        if kind[i] != "w":
            continue
        if w in HEDGE_PHRASE_TOKENS:
            hedged = True
            used[i] = True
        elif w in L.HEDGES and _is_hedge(s, i):
            hedged = True
            used[i] = True
        if w in QUALIFIER_PHRASE_TOKENS or w in L.QUALIFIERS:
            if not (w == "some" and i + 1 < n and kind[i + 1] == "n"  # "some 20 kg": about
                    or w == "most" and i > 0 and low[i - 1] == "the"):  # a superlative
                qualified = True
        if w in L.CLAUSE_QUALIFIERS:
            is_clause = True
            if w == "when" and (i == start or i > 0 and _is_past(low[i - 1])):
                is_clause = False  # "damaged when the lander touched down": a time, not a condition
            if w == "once" and not (i + 1 < n and low[i + 1] in L.ONCE_CLAUSE_STARTS):
                is_clause = False  # "not failed once this month": emphasis, not a condition
            if is_clause:
                if w in ("when", "once"):
                    qualified = True
                clause_qual_at = min(clause_qual_at, i)
        if w in L.NEGATORS or w in NEGATOR_PHRASE_TOKENS:
            negators.append(i)
    s.hedged, s.qualified, s.negators = hedged, qualified, negators
    s.main_end = clause_qual_at  # the main clause ends where a restriction starts
    s.retracts = _retracts(s)


def _retracts(s: Scan) -> bool:
    low, start = s.low, s.start
    lowered = s.text.lower()
    # a retraction phrase starts and ends at word boundaries, so each of its words is a
    # word of the text; most texts lack the key words and skip the slow phrase searches
    words = set(_WORD.findall(lowered))
    strong = not _STRONG_KEYS.isdisjoint(words)
    weak = not _WEAK_KEYS.isdisjoint(words)
    # whitespace runs as one space (the ends need none: every phrase starts with a letter)
    lowtext = " ".join(lowered.replace("’", "'").split()) if strong or weak else ""
    if (strong and _RETRACT_STRONG.search(lowtext)
            or start < s.n and low[start] in _IMPERATIVE_FIRST and _RETRACT_IMPERATIVE.match(" ".join(low[start:]))):
        return True
    if weak and _RETRACT_WEAK.search(lowtext) and not _RETRACT_NOT_AFTER.search(lowtext):
        return bool(set(low) & L.REPORT_WORDS)  # "wrong" counts only about a report
    return False


def _is_hedge(s: Scan, i: int) -> bool:
    low, orig, kind, n = s.low, s.orig, s.kind, s.n
    w = low[i]
    if w == "may":
        if (i + 1 < n and (kind[i + 1] == "n" or low[i + 1] == "not")) or (
            i > 0 and (kind[i - 1] == "n" or low[i - 1] in ("in", "of", "early", "late", "mid", "since", "until", "by"))
        ) or (orig[i] == "May" and not s.sent_start[i]):
            return False  # the month, or "may not" (permission)
        if any(low[k] in L.NEGATORS or low[k] == "no_one" for k in range(max(s.start, i - 4), i)):
            return False  # "no crew member may": permission, not doubt
    if w == "could" and i + 1 < n and low[i + 1] == "not":
        return False
    if w in ("suggest", "suggests") and i > s.start and low[i - 1] == ",":
        return False
    return True


def _is_past(w: str) -> bool:
    return w in L.IRREGULAR_PAST or (len(w) > 4 and w.endswith("ed"))
