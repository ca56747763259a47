"""The learned judge's reason, in plain words: the relation, what each text says, and the
signs that weighed most for it.

The combiner (`learned`) weighs features such as "polarity_one" or "align_min"; a
reason names what they saw in the texts instead ("only b is negated", "they use
mostly the same words"). A feature pushes a relation by being above or below its
usual value, so each has a phrase for either side; one that says nothing a person
could check (the rules' own verdict, crossed features) has none.
"""

from __future__ import annotations

from .analysis import Analysis
from .quoting import Pair
from .reasons import versus

# what each relation is, said of the two texts
_RELATION = {
    "constructive": "They agree",
    "destructive": "They contradict each other",
    "partial": "They agree only in part",
    "independent": "They are about different things",
}
_SLOT_WORDS = {"number": "figure", "time": "time", "day": "day", "place": "place", "person": "person",
               "role": "role", "state": "condition", "negation": "claim"}
_WORDING = ("coverage", "same_claim", "lemma_jaccard", "lemma_overlap", "align_mean", "align_min")
_NEGATION = ("polarity_one", "negation_parity", "negated_any", "polarity_one_x_align")
# feature -> (phrase when above its usual value, phrase when below); None: nothing to say
_PLAIN: dict[str, tuple[str | None, str | None]] = {
    "cosine_x_same_object": ("they are about the same subject", None),
    "same_object": ("they are about the same subject", "they are not about the same subject"),
    "matched_object": ("they name the same object", None),
    "different_objects": ("they name different objects", None),
    "substitution": ("their subjects differ", None),
    "personal_other_people": ("they are about different people", None),
    "any_match": ("they share a detail", "they share no detail"),
    "any_clash": ("a detail of one clashes with the other", "no detail of one clashes with the other"),
    "hedge_both": ("both hedge", None),
    "unaligned_max": ("one says things the other does not", "neither says much the other does not"),
    "unaligned_mean": ("one says things the other does not", "neither says much the other does not"),
    "length_ratio": ("they are about as long", "one is much longer than the other"),
    "slot_only_one": ("one gives details the other lacks", None),
    "people_only_one": ("only one names a person", None),
    "loose_state_clash": ("they use words of opposite meaning", None),
    "loose_state_match": ("they use words of the same meaning", None),
    "attributes_both": ("both name an attribute", None),
    "attributes_shared": ("they describe the same attribute", None),
    "attributes_disjoint": ("they describe different attributes", None),
}


# why the judge did not say a more likely relation (`learned.decide`)
_PASSED_OVER = {
    "constructive": "They may agree, but not surely enough to say so.",
    "destructive": "They may contradict each other, but nothing in them clashes.",
}


def learned_reason(relation: str, a: Analysis, b: Analysis, clashed, *, said: list[str] = (),
                   passed_over: str | None = None) -> str:
    """ "They agree only in part: a says X; b says Y. The strongest signs are that ... and that ...";
    or, where a more likely relation was passed over, why."""
    sides = versus(a, b, clashed) if relation == "destructive" else Pair(a, b).both_say()
    reason = f"{_RELATION[relation]}: {sides}."
    if passed_over:
        return f"{reason} {_PASSED_OVER[passed_over]}"
    if len(said) > 1:
        return f"{reason} The strongest signs are that {' and that '.join(said)}."
    return f"{reason} The strongest sign is that {said[0]}." if said else reason


def plain(feature: str, above: bool, a: Analysis, b: Analysis, sim: float) -> str | None:
    """What a feature saw, as a clause ("only b is negated"); None when it says nothing plain."""
    if feature.startswith("rule_") or feature in ("constructive_rule_x_align", "no_evidence_x_cosine"):
        return None
    if feature in _PLAIN:
        return _PLAIN[feature][0 if above else 1]
    if feature.startswith("cosine"):
        return f"their wording is {'close' if above else 'far apart'} (cosine similarity {sim:.2f})"
    if feature in _WORDING:
        return "they use mostly the same words" if above else "they share few words"
    if feature in _NEGATION:
        return _negation(above, a, b)
    slot = feature.partition("_")[2]
    if feature.startswith("match_") and above:
        return f"they give the same {_SLOT_WORDS[slot]}" if slot != "negation" else None
    if feature.startswith("clash_"):
        if slot == "negation":
            return "one of them denies what the other says" if above else "neither denies what the other says"
        return f"they give another {_SLOT_WORDS[slot]}" if above else f"no {_SLOT_WORDS[slot]} of one clashes with the other"
    if feature == "hedge_one" and above:
        return f"{_who(a.hedged, b.hedged)} only hedges"
    if feature == "qualified_one" and above:
        return f"{_who(a.qualified, b.qualified)} narrows the claim down"
    if feature == "retracts_one" and above:
        return f"{_who(a.retracts, b.retracts)} takes a claim back"
    return None


def _negation(above: bool, a: Analysis, b: Analysis) -> str:
    if bool(a.negated) != bool(b.negated):
        return f"only {_who(bool(a.negated), bool(b.negated))} is negated"
    return "both are negated" if a.negated else "neither is negated"


def _who(in_a: bool, in_b: bool) -> str:
    return "a" if in_a and not in_b else "b" if in_b and not in_a else "one of them"
