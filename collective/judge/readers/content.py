"""The claim's content words: what is in the subject, what the predicate
asserts, which attribute is described, and what is negated."""

from __future__ import annotations

from .. import lexicon as L
from ..text import (
    LOWER_BOUND_TOKENS,
    NEGATOR_PHRASE_TOKENS,
    QUALIFIER_PHRASE_TOKENS,
    UPPER_BOUND_TOKENS,
    is_verb,
    stem,
)
from .scan import Scan

# words that carry no content of the claim
_NOT_CONTENT = (L.STOPWORDS | L.NEGATORS | L.HEDGES | L.QUALIFIERS | L.APPROXIMATORS
                | NEGATOR_PHRASE_TOKENS | QUALIFIER_PHRASE_TOKENS | LOWER_BOUND_TOKENS | UPPER_BOUND_TOKENS
                | (L.AUXILIARIES - L.VERBS))


def content_words(s: Scan) -> tuple[set, set, set, set, set, set]:
    """Stems of the main clause's unused words: (content, subject, predicate, attributes,
    positive, negated); positive and negated still overlap (the caller takes the differences)."""
    low, kind, used, n = s.low, s.kind, s.used, s.n
    verb_at, main_end, negcount = s.verb_at, s.main_end, s.negcount
    content: set[str] = set()
    subject: set[str] = set()
    predicate: set[str] = set()
    attributes: set[str] = set()
    positive: set[str] = set()
    negated: set[str] = set()
    for i in [i for i in range(s.start, main_end) if kind[i] == "w" and not used[i] and low[i] not in _NOT_CONTENT]:
        w = low[i]
        st = stem(w)
        content.add(st)
        if i < verb_at:
            nxt = low[i + 1] if i + 1 < n else ""
            # "water pump": an attribute noun before another noun only modifies it
            modifier = i + 1 < verb_at and kind[i + 1] == "w" and not used[i + 1] and nxt not in L.STOPWORDS and not is_verb(nxt) and nxt != "'s"
            if (w in L.ATTRIBUTE_NOUNS or st in L.ATTRIBUTE_NOUNS) and not modifier:
                attributes.add(st)
            elif w not in L.PRONOUNS:
                subject.add(st)
        else:
            predicate.add(st)
        if negcount[i] % 2:
            negated.add(st)
        elif i >= verb_at:
            positive.add(st)
    return content, subject, predicate, attributes, positive, negated


def text_words(s: Scan) -> tuple[str, ...]:
    """Every word of the text (not only the main clause), lower case, without the words
    that carry no content; joined phrases split again ("shut_down" -> "shut", "down")."""
    out: list[str] = []
    for w, k in zip(s.low, s.kind):
        if k == "w" and w not in _NOT_CONTENT and not w.startswith("__"):
            out.extend(p for p in w.split("_") if p and p not in L.STOPWORDS)
    return tuple(out)
