"""The state of one text being read: its tokens and what each reader found so far."""

from __future__ import annotations

from ..text import tokenise


class Scan:
    """One text being read.

    The readers run in a fixed order (`collective.judge.reader.analyse_text`).
    Each reads the tokens and what earlier readers found, stores its own
    findings here, and marks the tokens it takes as used, so a later reader
    does not take them again ("rover 5" is an identity, not a count of rovers).
    """

    __slots__ = (
        "text", "orig", "low", "kind", "used", "n", "vocab",
        "start", "sent_start",  # clauses.read_frame: where the claim starts, sentence starts
        "hedged", "qualified", "negators", "main_end", "retracts",  # flags.read_flags
        "negcount",  # negation.read_scope: negators over each token
        "times", "time_text", "days",  # times
        "id_pos", "mod_pos",  # identities
        "quantity_raw",  # numbers.read_quantities
        "people_at", "roles_at",  # people.read_people
        "verb_at",  # clauses.read_main_verb: the subject ends here
        "axes", "axis_words",  # states.read_states
        "places", "subject_places", "place_ids",  # places.read_places
    )

    def __init__(self, text: str):
        self.text = text
        self.orig, self.low, self.kind = tokenise(text)
        self.used = [False] * len(self.orig)
        self.n = len(self.orig)
        self.vocab = set(self.low)  # lets a reader skip a text that lacks its trigger words
