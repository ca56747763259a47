"""People and crew roles: names ("Chen", "Dr. Okafor"), possessives ("Chen's
suit"), and roles that fill a duty the way a name does ("the commander")."""

from __future__ import annotations

from .. import lexicon as L
from ..text import CACHE_LIMIT, STATE_INDEX, is_verb, stem
from .scan import Scan

_TITLE_OR_ROLE = L.TITLES | frozenset(L.ROLE_NOUNS)
_EMPTY: frozenset = frozenset()

# words a capitalised word must not be to count as a name
_KNOWN_WORDS = (frozenset(L.STOPWORDS) | L.ID_NOUNS | L.PLACE_NOUNS | L.ATTRIBUTE_NOUNS
                | frozenset(L.UNITS) | frozenset(L.WEEKDAYS) | frozenset(L.MONTHS)
                | frozenset(STATE_INDEX) | L.NOT_NAMES | L.HEDGES | L.QUALIFIERS
                | L.NEGATORS | frozenset(L.MODIFIER_IDS) | frozenset(L.ROLE_NOUNS)
                | L.TITLES | L.AUXILIARIES | L.VERBS | frozenset(L.NUMBER_WORDS))


def read_people(s: Scan) -> None:
    """Names (after a title, or name-shaped words) with whether each is a possessive before a
    noun, and crew roles."""
    low, orig, kind, used, n = s.low, s.orig, s.kind, s.used, s.n
    people_at: list[tuple[int, str, bool]] = []  # (index, name, possessive before a noun)
    roles_at: list[tuple[int, str]] = []
    # only capitalised words, titles and role nouns can be people
    for i in [i for i in range(s.start, n) if kind[i] == "w" and (
              orig[i][:1].isupper() or low[i] in _TITLE_OR_ROLE or low[i].rstrip("s") in L.ROLE_NOUNS)]:
        if used[i]:
            continue
        w = low[i]
        name = None
        last = i
        if w in L.TITLES and i + 1 < n:
            j = i + 1
            if low[j] == "." and j + 1 < n:
                j += 1
            if kind[j] == "w" and orig[j][:1].isupper() and low[j] not in L.NOT_NAMES and low[j] not in L.STOPWORDS:
                name = low[j]
                for q in range(i, j + 1):
                    used[q] = True
                last = j
        if name is None and _is_name(s, i):
            name = w
            used[i] = True
        if name:
            poss = last + 1 < n and low[last + 1] == "'s"
            before_noun = poss and last + 2 < n and kind[last + 2] == "w" and not is_verb(low[last + 2]) and low[last + 2] not in L.STOPWORDS
            if poss:
                used[last + 1] = True
            people_at.append((i, name, bool(before_noun)))
            continue
        role = L.ROLE_NOUNS.get(w) or L.ROLE_NOUNS.get(w.rstrip("s"))
        if role:
            roles_at.append((i, role))
            used[i] = True
    s.people_at, s.roles_at = people_at, roles_at


def _is_name(s: Scan, i: int) -> bool:
    o, w = s.orig[i], s.low[i]
    if "_" in w or not _name_shaped(o):
        return False
    if not s.sent_start[i]:
        return True
    # first word of a sentence: a name only if a verb follows and it does not look like a common word
    nxt = s.low[i + 1] if i + 1 < s.n else ""
    if i > 0 and s.low[i - 1] in (":", "=") and (i + 1 >= s.n or s.kind[i + 1] == "p"):
        return not w.endswith(L.COMMON_SUFFIXES)  # a field's value: "collector: Piotr", "IC: Tom."
    past = len(nxt) > 4 and nxt.endswith("ed") and s.kind[i + 1] == "w" and s.orig[i + 1].islower()
    return (nxt == "'s" or is_verb(nxt) or past or nxt in L.NEGATORS or nxt == "and") and not w.endswith(L.COMMON_SUFFIXES)


def _name_shaped(word: str, _cache: dict = {}) -> bool:  # noqa: B006 - deliberate cache
    """One capital, not first of many, no digits, not a known word: "Chen", not "Pump" or "NASA"."""
    r = _cache.get(word)
    if r is None:
        o, w = word, word.lower()
        r = (o[:1].isupper() and len(o) > 1 and not o.isupper() and sum(c.isupper() for c in o) == 1
             and not (w in _KNOWN_WORDS or stem(w) in _KNOWN_WORDS or w.rstrip("s") in _KNOWN_WORDS)
             and not any(c.isdecimal() for c in o))
        if len(_cache) > CACHE_LIMIT:
            _cache.clear()
        _cache[word] = r
    return r


def people_sets(s: Scan) -> tuple[frozenset, frozenset, frozenset, bool]:
    """Owners ("Chen's suit"), the people and roles of the main clause, and whether the claim
    is a condition of the person named (a cold, asleep, a weight)."""
    owners = people = roles = _EMPTY
    if s.people_at:
        owners = frozenset(nm for p, nm, poss in s.people_at if poss)
        people = frozenset(nm for p, nm, poss in s.people_at if not poss and p < s.main_end) - owners
    if s.roles_at:
        roles = frozenset(r for p, r in s.roles_at if p < s.main_end)
    low = s.low
    personal = bool(not owners and (people or roles)
                    and any(low[i] in L.PERSONAL_CONDITIONS for i in range(max(s.verb_at, s.start), s.main_end)))
    return owners, people, roles, personal
