"""Identities: which one of several like objects a text is about ("rover 5",
"module C", "node 2 hatch", "east array", "staging database")."""

from __future__ import annotations

import re

from .. import lexicon as L
from ..text import LOWER_BOUND_TOKENS, STATE_INDEX, UPPER_BOUND_TOKENS, is_verb
from .numbers import unit_at
from .scan import Scan


def read_identities(s: Scan) -> None:
    """A noun followed by a number or a capital letter: "rover 5", "module C"."""
    low, orig, kind, used, n = s.low, s.orig, s.kind, s.used, s.n
    id_pos: list[tuple[int, str, str]] = []  # (token index, head, id)
    for i in [j - 1 for j in range(1, n) if kind[j] == "n" or kind[j] == "w" and len(orig[j]) <= 2 and orig[j][:1].isupper()]:
        w = low[i]
        if kind[i] != "w" or used[i] or w in L.STOPWORDS or w in L.NEGATORS:
            continue
        j = i + 1
        if used[j]:
            continue
        nxt_o = orig[j]
        if (i > 0 and low[i - 1] in ("(", "[") and kind[j] == "n" and j + 1 < n and low[j + 1] in (")", "]")
                and w not in L.ID_NOUNS):
            used[i] = used[j] = True  # "(report 12)": a reference aside, neither the object nor a quantity
            continue
        ident = None
        after = low[j + 1] if j + 1 < n else ""
        if kind[j] == "n" and not nxt_o.startswith("-") and "," not in nxt_o:
            unit_next = unit_at(s, j + 1)
            if w in L.ID_NOUNS:
                if unit_next is None or unit_next[0] == "ratio" or after == "'s":
                    ident = nxt_o.lower()  # else "tank 200 litres": a quantity after all
            elif (unit_next is None and _ends_phrase(s, j) and (not is_verb(w) or _heads_phrase(s, i))
                  and w not in STATE_INDEX and w not in L.UNITS
                  and w not in LOWER_BOUND_TOKENS and w not in UPPER_BOUND_TOKENS and w not in L.APPROXIMATORS):
                ident = nxt_o.lower()
        elif (kind[j] == "w" and len(nxt_o) <= 2 and nxt_o[:1].isupper() and (nxt_o.isupper() or nxt_o[1:].isdigit())
              and w.isalpha() and nxt_o != "I"):
            # a capital letter: "module C", "bus A" ("A" only after a known noun)
            if (w in L.ID_NOUNS or orig[i][:1].isupper() or _ends_phrase(s, j)) and (nxt_o != "A" or w in L.ID_NOUNS):
                ident = nxt_o.lower()
        if ident is not None:
            id_pos.append((i, _id_head(w), ident))
            used[i] = used[j] = True
    id_pos.extend(_code_identities(s))
    s.id_pos = id_pos


def _code_identities(s: Scan) -> list[tuple[int, str, str]]:
    """Tags of letters and digits name one object whatever noun goes with them ("pump P-101",
    "the P-101 feed pump", "host db-01", "valve R2-1"): read under the one head "tag"."""
    found = []
    for i, w in enumerate(s.low):
        if s.kind[i] == "w" and not s.used[i] and _CODE.fullmatch(w) and w not in L.UNITS and w not in L.ATTRIBUTE_NOUNS:
            found.append((i, "tag", w))
            s.used[i] = True
    return found


# letters and digits, both present, 3+ characters: p-101, r2-1, web-01, ct-6, s12 (not o2, co2: units)
_CODE = re.compile(r"(?=[a-z0-9-]*[a-z])(?=[a-z0-9-]*[0-9])[a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z]{1,3}[0-9]{2,}|[a-z]+[0-9]+[a-z]")


def _ends_phrase(s: Scan, j: int) -> bool:
    """Whether a noun phrase ends at token j: punctuation, 's, a stopword or a verb follows."""
    if j + 1 >= s.n:
        return True
    after = s.low[j + 1]
    return s.kind[j + 1] == "p" or after == "'s" or after in L.STOPWORDS or is_verb(after)


def _starts_phrase(s: Scan, i: int) -> bool:
    """Whether a noun phrase starts at token i: the text's start, punctuation or an article
    before it ("Store 118 is out", "the store 118"): a verb there is a noun ("store", "plot").
    Not after an opening bracket: "(report 12)" is an aside, not what the claim is about."""
    return i == 0 or s.kind[i - 1] == "p" and s.low[i - 1] not in ("(", "[") or s.low[i - 1] in L.DETERMINERS


def _heads_phrase(s: Scan, i: int) -> bool:
    """Whether the word at i is a noun phrase's head at its start: the phrase starts there,
    or one word before it ("Drill log 10:", "the crew note 4"): a verb there is a noun."""
    return _starts_phrase(s, i) or (i > 0 and s.kind[i - 1] == "w" and s.low[i - 1] not in L.STOPWORDS
                                    and s.low[i - 1] not in L.NEGATORS and _starts_phrase(s, i - 1))


def read_modifier_identities(s: Scan) -> None:
    """A run of modifier words before a noun: "east array", "inner hatch", "front-left wheel"."""
    low, kind, used, n = s.low, s.kind, s.used, s.n
    mod_pos: list[tuple[int, str, str]] = []
    # a run starts at a modifier word (a run found to lack a noun fails again from
    # its later words; a run taken marks its words used)
    for i in [i for i, w in enumerate(low) if w in L.MODIFIER_IDS or "-" in w]:
        mods: list[str] = []
        k = i
        while k < n and kind[k] == "w" and not used[k]:
            parts = low[k].split("-") if "-" in low[k] else [low[k]]
            if all(p in L.MODIFIER_IDS for p in parts):
                mods.extend(L.MODIFIER_IDS[p] for p in parts)
                k += 1
            else:
                break
        if mods and k < n and kind[k] == "w" and _nounish(s, k):
            h = k  # the head is the last noun of the run ("east solar array" -> array)
            while h + 1 < n and h - k < 2 and kind[h + 1] == "w" and not used[h + 1] and low[h + 1] != "'s" and _nounish(s, h + 1):
                h += 1
            mod_pos.append((i, _id_head(low[h]), " ".join(sorted(mods))))
            for q in range(i, k):
                used[q] = True
    s.mod_pos = mod_pos


def _nounish(s: Scan, k: int) -> bool:
    w = s.low[k]
    return w not in L.STOPWORDS and not is_verb(w) and w not in STATE_INDEX and w not in L.NEGATORS


def _id_head(w: str) -> str:
    """The kind of object an identifier belongs to, readable: "modules" -> "module"."""
    if w in ("release", "releases", "build", "builds", "v", "ver"):
        return "version"
    st = L.IRREGULAR_STEMS.get(w)
    if st is not None:
        return st
    if len(w) > 3 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def identity_sets(s: Scan) -> tuple[dict, frozenset]:
    """The identities of the claim by head ({"rover": {"5"}}), and every "head id" in the text.

    An identity that names where something is ("parked at site 4") is not what the claim is about."""
    ids: dict[str, set] = {}
    all_ids: set[str] = set()
    for p, h, d in s.id_pos:
        all_ids.add(f"{h} {d}")
        if p not in s.place_ids:
            ids.setdefault(h, set()).add(d)  # the subject, or the predicate's object ("drive rover 2")
    for p, h, d in s.mod_pos:
        if p < s.verb_at:
            ids.setdefault(h, set()).add(d)
            all_ids.add(f"{h} {d}")
    return {h: frozenset(v) for h, v in ids.items()}, frozenset(all_ids)
