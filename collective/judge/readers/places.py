"""Places: prepositional phrases that name a location ("in module C", "at
site 4", "near the east array")."""

from __future__ import annotations

from .. import lexicon as L
from ..text import STATE_INDEX, is_verb, stem
from .scan import Scan


def read_places(s: Scan) -> None:
    """Locations of the predicate and of the subject ("the pump in module C"), each a set of
    stems; and the identities that name a predicate location (they are not the claim's object)."""
    low, orig, kind, used, n, verb_at = s.low, s.orig, s.kind, s.used, s.n, s.verb_at
    places: list[frozenset] = []
    subject_places: list[frozenset] = []
    place_ids: set[int] = set()  # identities that name a predicate location
    id_index = {p: (h, d) for p, h, d in s.id_pos}
    mod_index = {p: (h, d) for p, h, d in s.mod_pos}
    for i in [i for i in range(s.start, s.main_end) if low[i] in L.PLACE_PREPOSITIONS and kind[i] == "w"]:
        k = i + 1
        words: list[str] = []
        placey = False
        while k < n and len(words) < 4:
            wk = low[k]
            if k in id_index:
                h, d = id_index[k]
                words.append(f"{h} {d}")
                placey = True
                if i >= verb_at:
                    place_ids.add(k)
                k += 2
                continue
            if k in mod_index:
                words.append(mod_index[k][1])
                k += 1
                while k < n and used[k] and kind[k] == "w":
                    k += 1
                continue
            if wk in L.DETERMINERS and not words:
                k += 1
                continue
            noun_next = k + 1 < n and (k + 1 in id_index or low[k + 1] in L.PLACE_NOUNS)  # "store room 1"
            if kind[k] != "w" or used[k] or wk in L.STOPWORDS or is_verb(wk) and not noun_next or wk in L.PLACE_PREPOSITIONS:
                break
            if wk in STATE_INDEX and not (k + 1 < n and kind[k + 1] == "w" and (low[k + 1] in L.PLACE_NOUNS or stem(low[k + 1]) in L.PLACE_NOUNS)):
                break  # a state word ends the phrase unless it names a place ("cold room")
            st = stem(wk)
            words.append(st)
            if wk in L.PLACE_NOUNS or st in L.PLACE_NOUNS or orig[k][:1].isupper():
                placey = True
            k += 1
        if placey and words:
            if i >= verb_at and k + 1 < n and low[k] in (",", "(") and k + 1 in id_index:  # "in freezer F2, rack 4"
                place_ids.add(k + 1)
                words.append(" ".join(id_index[k + 1]))
            (subject_places if i < verb_at else places).append(frozenset(words))
    s.places, s.subject_places, s.place_ids = places, subject_places, place_ids
