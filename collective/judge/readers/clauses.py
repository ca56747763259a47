"""Clauses: a leading label, where sentences start, and the main verb."""

from __future__ import annotations

from .. import lexicon as L
from ..text import STATE_INDEX, is_verb
from .scan import Scan


def read_frame(s: Scan) -> None:
    """Where the claim starts (after a label such as "Update:") and which tokens start a sentence."""
    low, n = s.low, s.n
    # a leading label ("Retraction:", "Update:") is not the subject
    s.start = 0
    if n > 2 and low[1] == ":" and low[0] in L.LABEL_WORDS:
        s.start = 2
    elif n > 3 and low[2] == ":" and low[0] in L.LABEL_WORDS:
        s.start = 3
    sent_start = [False] * n
    if n:
        sent_start[s.start if s.start < n else 0] = True
    for i in [i for i in range(n - 1) if low[i] in L.SENTENCE_ENDS]:
        if not (low[i] == "." and i >= 1 and low[i - 1] in L.TITLES):  # "Dr. Chen"
            sent_start[i + 1] = True
    s.sent_start = sent_start


def read_main_verb(s: Scan) -> None:
    """The subject ends at the first verb (or a colon, or a negator after it)."""
    low, kind, used, n, start = s.low, s.kind, s.used, s.n, s.start
    verb_at = n
    for i in range(start, n):
        w = low[i]
        if w == ":" or (kind[i] == "w" and not used[i] and (is_verb(w) or (len(w) > 4 and w.endswith("ed") and i > start and low[i - 1] not in L.DETERMINERS))):
            if w not in L.TRUE_AUXILIARIES and i + 1 < n and low[i + 1] in L.TRUE_AUXILIARIES:
                continue  # "the deploy was rolled back": a noun before the verb
            verb_at = i
            break
        if kind[i] == "w" and w in L.NEGATORS and i > start and w not in ("no", "none", "nobody", "nothing", "no_one"):
            verb_at = i
            break
    if verb_at == n:
        # telegraphic memories ("Hab water recovery system operating nominally"):
        # the first participle or state word starts the predicate
        for i in range(start + 1, n):
            w = low[i]
            if kind[i] == "w" and not used[i] and low[i - 1] not in L.DETERMINERS and (
                (len(w) > 5 and w.endswith(("ing", "ed"))) or w in STATE_INDEX
            ):
                verb_at = i
                break
    s.verb_at = verb_at
