"""The evidence about a pair of memories as numbers, for the learned combiner.

Each slot reader's comparison becomes features (matches and clashes per
slot), beside the cosine, lemma and word-vector alignment, negation parity,
hedges, restrictions, retractions, shared or different object identity,
which attribute each side talks about, the length ratio, and the rule
judge's own verdict. `FEATURES` names them in order; the combiner's
coefficients (judge_data/combiner.json) follow that order.
"""

from __future__ import annotations

from functools import lru_cache

from .align import alignment
from .analysis import Analysis
from .lexicon import PARAPHRASE_COSINE, TOPIC_COSINE
from .protocol import RELATIONS
from .rules import Findings, Ruled, decide
from .text import STATE_INDEX

# evidence crossed with the rules' verdict: the combiner learns when to trust each verdict
# (`pair_features` fills them in this order)
_CROSSED = ("cosine", "align_min", "any_match", "any_clash", "same_object", "polarity_one", "loose_state_clash",
            "lemma_overlap", "unaligned_max")
SLOTS = ("number", "time", "day", "place", "person", "role", "state", "negation")
_SLOT_AT = {slot: k for k, slot in enumerate(SLOTS)}

FEATURES = (
    ("cosine", "cosine_above_topic", "cosine_above_paraphrase", "cosine_x_same_object")
    + tuple(f"rule_{r}" for r in RELATIONS)
    + tuple(f"match_{s}" for s in SLOTS) + tuple(f"clash_{s}" for s in SLOTS)
    + ("any_match", "any_clash", "matched_object", "different_objects", "same_object", "substitution",
       "coverage", "same_claim", "personal_other_people",
       "hedge_one", "hedge_both", "qualified_one", "retracts_one",
       "negation_parity", "negated_any",
       "attributes_both", "attributes_shared", "attributes_disjoint",
       "lemma_jaccard", "lemma_overlap", "align_mean", "align_min", "unaligned_max", "unaligned_mean",
       "length_ratio", "slot_only_one", "people_only_one",
       "polarity_one", "polarity_one_x_align", "loose_state_clash", "loose_state_match",
       "constructive_rule_x_align", "no_evidence_x_cosine")
    + tuple(f"rule_{r}_x_{e}" for r in RELATIONS for e in _CROSSED)
)


def judge_features(a: Analysis, b: Analysis, sim: float, floor: float) -> tuple[Ruled, list[float]]:
    """The rule judge's verdict on a pair, and the pair's features in the order of `FEATURES`."""
    found = Findings(a, b, floor)
    rule, personal_other = decide(a, b, sim, found)
    return rule, pair_features(a, b, sim, found, rule, float(personal_other))


def pair_features(a: Analysis, b: Analysis, sim: float, found: Findings, rule: Ruled, personal_other: float) -> list[float]:
    """The features of a pair whose slots `found` has compared (one list, built in one go: speed)."""
    matches, clashes = [0.0] * len(SLOTS), [0.0] * len(SLOTS)
    matched_object = 0.0
    for tag in found.matched:
        k = _SLOT_AT.get(tag.partition(":")[0])
        if k is not None:
            matches[k] += 1.0
        elif tag.startswith(("object", "owner")):
            matched_object = 1.0
    for tag in found.clashed:
        k = _SLOT_AT.get(tag.partition(":")[0])
        if k is not None:
            clashes[k] += 1.0
    any_match, any_clash = float(any(matches)), float(any(clashes))
    rel, same_object = rule.relation, float(found.same_object)
    ca, cb = a.content, b.content
    shared = len(ca & cb)
    overlap = shared / (min(len(ca), len(cb)) or 1)
    mean_a, mean_b, left_a, left_b = alignment(a.words, b.words)
    align_min, unaligned_max = min(mean_a, mean_b), max(left_a, left_b)
    la, lb = len(a.words), len(b.words)
    polarity_one = float(bool(a.negated) != bool(b.negated))
    clash, match = _loose_states(a, b)
    evidence = any_match or any_clash or polarity_one or clash
    attrs_both = bool(a.attributes and b.attributes)
    attrs_shared = bool(a.attributes & b.attributes)
    f = [
        sim, float(sim >= TOPIC_COSINE), float(sim >= PARAPHRASE_COSINE), sim * same_object,
        *(float(rel == r) for r in RELATIONS), *matches, *clashes,
        any_match, any_clash, matched_object, float(len(found.different)), same_object,
        float(found.substitution), found.coverage, found.same_claim, personal_other,
        float(a.hedged != b.hedged), float(a.hedged and b.hedged), float(a.qualified != b.qualified),
        float(a.retracts != b.retracts),
        float((len(a.negated) + len(b.negated)) % 2), float(bool(a.negated or b.negated)),
        float(attrs_both), float(attrs_shared), float(attrs_both and not attrs_shared),
        shared / (len(ca | cb) or 1), overlap,
        (mean_a + mean_b) / 2, align_min, unaligned_max, (left_a + left_b) / 2,
        min(la, lb) / (max(la, lb) or 1), _slot_only_one(a, b), float(bool(a.people) != bool(b.people)),
        polarity_one, polarity_one * align_min, clash, match,
        float(rel == "constructive") * align_min, 0.0 if evidence else sim,
    ]
    crossed = (sim, align_min, any_match, any_clash, same_object, polarity_one, clash, overlap, unaligned_max)
    zeros = (0.0,) * len(crossed)
    for r in RELATIONS:
        f += crossed if rel == r else zeros
    return f


def _loose_states(a: Analysis, b: Analysis) -> tuple[float, float]:
    """State words anywhere in the texts (not only where the state reader takes them), each
    side's poles flipped when its claim is negated: (opposite poles on an axis, same poles)."""
    pa, pb = _poles(a.words, len(a.negated) % 2), _poles(b.words, len(b.negated) % 2)
    shared = pa.keys() & pb.keys()
    clash = any(pa[x] != pb[x] for x in shared)
    return float(clash), float(bool(shared) and not clash)


@lru_cache(maxsize=65536)
def _poles(words: tuple[str, ...], negated: int) -> dict:
    flip = -1 if negated else 1
    out = {}
    for w in words:
        hit = STATE_INDEX.get(w)
        if hit is not None:
            out[hit[0]] = hit[1] * flip
    return out


def _slot_only_one(a: Analysis, b: Analysis) -> float:
    """How many slots one text fills and the other leaves empty (an elaboration adds them)."""
    pairs = ((a.quantities, b.quantities), (a.times, b.times), (a.days, b.days), (a.places, b.places),
             (a.people, b.people), (a.axes, b.axes))
    return float(sum(bool(x) != bool(y) for x, y in pairs))
