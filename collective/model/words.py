"""Words: the English stop words, left out when a memory is found by its words, and the
topic a memory's event names: only common words (a fixed list shipped beside this file) and
the memory's own tags, so no secret of the statement goes on the bus."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Iterable

STOPWORDS = frozenset("""
a about above after again against all am an and any are aren as at be because been before being below
between both but by can cannot could couldn did didn do does doesn doing don down during each few for from
further had hadn has hasn have haven having he her here hers herself him himself his how i if in into is
isn it its itself just ll me more most my myself no nor not now of off on once only or other our ours
ourselves out over own re s same shan she should shouldn so some such t than that the their theirs them
themselves then there these they this those through to too under until up ve very was wasn we were weren
what when where which while who whom why will with won would wouldn y you your yours yourself yourselves
""".split())
# "not" and "no" are stop words for finding a memory, never for judging one (the judge reads them).

TOPIC_WORDS = 3
LONGEST_WORD = 32  # a run of letters longer than this is no word of a topic (nor fits an event field)
# where a statement's subject ends and what it says of it begins
VERBS_OF_BEING = frozenset("is are was were be been being am has have had do does did will would can could "
                           "should may might must shall".split())
COMMON_WORDS_FILE = "common_words.txt"
_EDGES = "\"'([{<*_`"          # stripped from a word's ends, with _ENDS
_ENDS = ".,;:!?)]}>\"'*_`"
_CLAUSE_ENDS = tuple(".;:!?=")  # a word ending so closes the subject ("Wi-fi password: ...")


@functools.cache
def common_words() -> frozenset[str]:
    """The fixed list of common English words a topic may name (common_words.txt, made by
    scripts/build_common_words.py): no name, code or rare word is on it."""
    text = (resources.files(__package__) / COMMON_WORDS_FILE).read_text(encoding="utf-8")
    return frozenset(line for line in text.split("\n") if line and not line.startswith("#"))


def topic(text: str, tags: Iterable[str] = ()) -> list[str]:
    """What a text is about, safe to say on the bus beside its id: the common words (the fixed
    list) of its subject, the words before its first "is", "has", ":" or "." ..., then words of
    its tags, which travel anyway; up to three, lower-cased. A rare word, a name, a number or
    a code (a word joined to digits or other words: "Zircon-7741", "falcon-ninety", "ALPHA")
    is never named, and nothing after the subject is ("The vault passphrase is falcon-ninety"
    -> nothing; "Valve R2-1 on the coolant loop is not open." -> loop)."""
    common, found, subject = common_words(), [], False
    for token in text.split():
        if not any(c.isalnum() for c in token):  # a dash, an "=": what follows is what it says
            break
        word = _bare(token)
        if not word.isalpha():
            subject = True  # a number or a code is part of the subject, and never named
        elif subject and word.lower() in VERBS_OF_BEING:
            break
        elif len(word) >= 3 and word.lower() not in STOPWORDS:
            subject = True
            if _plain(word) and word.lower() in common and _add(found, word.lower()):
                return found
        if token.endswith(_CLAUSE_ENDS):
            break
    for tag in tags:
        for token in tag.split() if isinstance(tag, str) else ():  # a bad tag is the event check's to refuse
            word = _bare(token)
            if word.isalpha() and 3 <= len(word) <= LONGEST_WORD and word.lower() not in STOPWORDS \
                    and _add(found, word.lower()):
                return found
    return found


def _bare(token: str) -> str:
    """A token without the punctuation around it nor a possessive "'s"."""
    word = token.strip(_EDGES).rstrip(_ENDS)
    return word[:-2] if word.endswith(("'s", "\u2019s")) else word


def _plain(word: str) -> bool:
    """Not an acronym or a code word written in capitals ("ALPHA", "NASA"), nor overlong."""
    return len(word) <= LONGEST_WORD and sum(c.isupper() for c in word) <= 1


def _add(found: list[str], word: str) -> bool:
    """Add a word once; whether the topic is full."""
    if word not in found:
        found.append(word)
    return len(found) == TOPIC_WORDS
