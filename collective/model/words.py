"""Words: the English stop words, left out when a memory is found by its words and when
its event names its topic. Pure."""

from __future__ import annotations

import re

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
_LETTERS = re.compile(r"[^\W\d_]+")


def topic(text: str) -> list[str]:
    """What a text is about, not what it says of it: the first few words of its subject (up
    to its first "is", "has", "will" ...) that are neither stop words nor short, lower-cased;
    numbers, codes and negations are left out ("Valve R2-1 on the coolant loop is not
    open." -> valve, coolant, loop; "The vault combination is 4-8-15-16" -> vault, combination)."""
    found: list[str] = []
    for word in _LETTERS.findall(text.lower()):
        if found and word in VERBS_OF_BEING:
            break
        if 3 <= len(word) <= LONGEST_WORD and word not in STOPWORDS and word not in found:
            found.append(word)
            if len(found) == TOPIC_WORDS:
                break
    return found
