"""The comparison rules of the rule judge: two analysed texts and their cosine in, a verdict out.

Embeddings decide "same topic" but cannot see negation, antonyms, other
numbers, other days or other people (DESIGN.md, "Phase"). The readers
(`collective.judge.reader`) extract the slots of each text; the rules below
compare them, gated by the caller's cosine similarity. They run in order and
the first that answers decides:

- the same kind of object with different identities ("rover 5" vs
  "rover 3", "Chen's" vs "Patel's", "staging" vs "production"): independent;
- another topic (low cosine and no shared object): independent;
- one text retracts what the other says: destructive;
- the slots are compared (numbers, times, days, places, people, roles,
  states, negation), recording what matches and what clashes; two people
  with the same personal condition ("Greta has a cold" / "Ito has a cold")
  are independent;
- one text hedges what the other states: partial;
- any slot clashes: destructive, unless only the subjects differ
  ("telemetry service" vs "scheduler service"): independent;
- one text restricts the other's claim (except, only, mostly...): partial;
- the same statement about different subjects: independent;
- same object, other attribute: partial;
- a slot matches, or the claims or the cosine agree: constructive;
- same object, nothing in common asserted: partial;
- otherwise independent.

(Pairs below the candidate floor never get here: `RuleJudge.judge` answers
"independent" for them.)

Each rule is ``rule(a, b, sim, found) -> Verdict | None``; `found` carries
what the pair shares (computed once) and the matched and clashed slots the
slot rules record.
"""

from __future__ import annotations

from typing import Callable

from . import reasons
from .analysis import Analysis
from .lexicon import PARAPHRASE_COSINE, SUBSTITUTION_COSINE, TOPIC_COSINE
from .protocol import Verdict


class Findings:
    """What two analyses share, and the slots that match or clash so far."""

    __slots__ = ("floor", "matched", "clashed", "different", "shared_people", "same_object",
                 "substitution", "coverage", "same_claim")

    def __init__(self, a: Analysis, b: Analysis, floor: float):
        self.floor = floor
        self.matched: list[str] = []
        self.clashed: list[str] = []
        self.different: list[str] = []  # same kind of object, other identity
        shared_obj = _match_objects(a, b, self.matched, self.different)
        self.shared_people = bool(a.people & b.people)
        persons_shared = bool((a.people | a.owners) & (b.people | b.owners))
        self.same_object = shared_obj or bool(a.subject & b.subject) or persons_shared
        # different subject words on both sides, neither found anywhere in the
        # other text: "telemetry service" vs "scheduler service"
        only_a, only_b = a.subject - b.subject, b.subject - a.subject
        self.substitution = bool(only_a and only_b and not (only_a & b.content) and not (only_b & a.content))
        claims_a, claims_b = a.predicate or a.attributes, b.predicate or b.attributes
        self.coverage = len(claims_a & claims_b) / (min(len(claims_a), len(claims_b)) or 1)
        self.same_claim = len(a.predicate & b.predicate) / (len(a.predicate | b.predicate) or 1)

    def slot_matched(self) -> bool:
        return any(m.startswith(("number", "time", "day", "state", "place")) for m in self.matched)


def _match_objects(a: Analysis, b: Analysis, matched: list, different: list) -> bool:
    """Record shared and different identities and owners; whether any object is shared."""
    shared_obj = False
    for head, va in a.ids.items():
        vb = b.ids.get(head)
        if vb is None:
            continue
        if va & vb:
            shared_obj = True
            matched.append(f"object:{head} {sorted(va & vb)[0]}")
        else:
            different.append(f"{head} {sorted(va)[0]} vs {head} {sorted(vb)[0]}")
    if a.all_ids & b.all_ids:
        shared_obj = True
        for x in sorted(a.all_ids & b.all_ids):
            tag = f"object:{x}"
            if tag not in matched:
                matched.append(tag)
    if a.owners and b.owners:
        if a.owners & b.owners:
            shared_obj = True
            matched.append(f"owner:{sorted(a.owners & b.owners)[0]}")
        else:
            different.append(f"{sorted(a.owners)[0]}'s vs {sorted(b.owners)[0]}'s")
    if a.subject_places and b.subject_places and not any(_places_compatible(x, y) for x in a.subject_places for y in b.subject_places):
        different.append(f"{' '.join(sorted(a.subject_places[0]))} vs {' '.join(sorted(b.subject_places[0]))}")
    return shared_obj


# --- gates


def different_objects(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if found.different:
        return _verdict("independent", 0.8, lambda: reasons.different_objects(a, b, found.different),
                        found.matched, [f"object:{d}" for d in found.different])
    return None


def different_topics(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    topic = sim >= TOPIC_COSINE or (found.same_object or found.coverage >= 0.5) and sim >= found.floor
    if not topic:
        return _verdict("independent", 0.7, lambda: reasons.different_topics(sim), found.matched, found.clashed)
    return None


def retraction(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if a.retracts != b.retracts:
        found.clashed.append("retraction")
        return _verdict("destructive", 0.8, lambda: reasons.retraction(a, b), found.matched, found.clashed)
    return None


# --- slots: record what matches and what clashes


def quantities(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    for x in a.quantities:
        cands = []
        for y in b.quantities:
            if x.dim != y.dim:
                continue
            if x.dim in ("count", "number"):  # a bare number says what it counts only by its key
                if not (x.key & y.key):
                    continue
            elif _says_what(x.key) and _says_what(y.key) and not (x.key & y.key):
                continue
            cands.append(y)
        if not cands:
            continue
        hit = next((y for y in cands if x.overlaps(y)), None)
        if hit is not None:
            found.matched.append(f"number:{x.text} = {hit.text}" if x.text != hit.text else f"number:{x.text}")
        else:
            found.clashed.append(f"number:{x.text} vs {cands[0].text}")
    return None


# words around a measurement that do not say what is measured ("reading 0.6 bar", "usage 88%")
_MEASURING = frozenset({"read", "usag", "used", "measur", "measurement", "level", "valu", "show", "total",
                        "figur", "number", "current", "now", "gaug", "sensor", "meter"})


def _says_what(key: frozenset) -> bool:
    """Whether a quantity's key names what is measured, beyond words of measuring."""
    return bool(key - _MEASURING)


def times(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if a.times and b.times:
        if a.times & b.times:
            ta, tb = a.time_text[0], b.time_text[0]
            found.matched.append(f"time:{ta} = {tb}" if ta != tb else f"time:{ta}")
        else:
            found.clashed.append(f"time:{a.time_text[0]} vs {b.time_text[0]}")
    return None


def days(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    for kind_, da in a.days.items():
        db = b.days.get(kind_)
        if db is None:
            continue
        if da & db:
            found.matched.append(f"day:{_fmt_day(kind_, sorted(da & db, key=str)[0])}")
        else:
            found.clashed.append(f"day:{_fmt_day(kind_, sorted(da, key=str)[0])} vs {_fmt_day(kind_, sorted(db, key=str)[0])}")
    return None


def places(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if a.places and b.places:
        if any(_places_compatible(x, y) for x in a.places for y in b.places):
            found.matched.append("place:" + " ".join(sorted(next(x for x in a.places if any(_places_compatible(x, y) for y in b.places)))))
        else:
            found.clashed.append(f"place:{' '.join(sorted(a.places[0]))} vs {' '.join(sorted(b.places[0]))}")
    return None


def people(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    """Other people clash, unless the claim is a personal condition: then they are two facts."""
    if a.people and b.people:
        if found.shared_people:
            found.matched.append(f"person:{sorted(a.people & b.people)[0]}")
        elif a.personal or b.personal:
            return _verdict("independent", 0.65, lambda: reasons.different_people(a, b), found.matched, [])
        else:
            found.clashed.append(f"person:{sorted(a.people)[0]} vs {sorted(b.people)[0]}")
    return None


def roles(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    """Crew roles, only when neither text names a person."""
    if a.roles and b.roles and not (a.people or b.people):
        if a.roles & b.roles:
            found.matched.append(f"role:{sorted(a.roles & b.roles)[0]}")
        else:
            found.clashed.append(f"role:{sorted(a.roles)[0]} vs {sorted(b.roles)[0]}")
    return None


def states(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    for axis, pa in a.axes.items():
        pb = b.axes.get(axis)
        if pb is None:
            continue
        if pa & pb:
            found.matched.append(f"state:{axis}")
        else:
            found.clashed.append(f"state:{a.axis_words.get(axis, axis)} vs {b.axis_words.get(axis, axis)}")
    return None


def negation(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    neg_clash = (a.negated & b.positive) | (b.negated & a.positive)
    if neg_clash:
        found.clashed.append(f"negation:{sorted(neg_clash)[0]}")
    return None


# --- decisions


def hedge(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if a.hedged != b.hedged:
        return _verdict("partial", 0.65, lambda: reasons.hedge(a, b), found.matched, found.clashed)
    return None


def clash_of_other_subjects(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    """States that clash about different subjects do not bear on the same thing."""
    if (found.clashed and found.substitution and not (a.people or b.people or a.roles or b.roles)
            and not any(c.startswith(("number", "time", "day", "place")) for c in found.clashed) and sim < SUBSTITUTION_COSINE):
        return _verdict("independent", 0.55, lambda: reasons.other_subjects(a, b, same_statement=False), found.matched, [])
    return None


def contradiction(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if found.clashed:
        conf = 0.75 + 0.05 * min(3, len(found.clashed)) if sim >= TOPIC_COSINE else 0.6
        return _verdict("destructive", conf, lambda: reasons.contradiction(a, b, found.clashed), found.matched, found.clashed)
    return None


def restriction(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if a.qualified != b.qualified:
        return _verdict("partial", 0.6, lambda: reasons.restriction(a, b), found.matched, found.clashed)
    return None


def same_statement_other_subjects(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    # a shared tag names one object whatever noun goes with it ("host db-01", "the db-01 server");
    # "module A" in both may hold two things (its scrubber, its filter)
    shared_id = any(m.startswith("object:tag ") for m in found.matched)
    if found.substitution and not shared_id and (found.same_claim >= 0.5 or (sim < TOPIC_COSINE and not found.slot_matched())):
        return _verdict("independent", 0.6, lambda: reasons.other_subjects(a, b, same_statement=True), found.matched, found.clashed)
    return None


def other_attribute(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if found.same_object and a.attributes and b.attributes and not (a.attributes & b.attributes) and not found.slot_matched():
        return _verdict("partial", 0.6, lambda: reasons.other_attribute(a, b), found.matched, found.clashed)
    return None


def agreement(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if found.slot_matched() or found.coverage >= 0.6 or sim >= PARAPHRASE_COSINE:
        conf = 0.6 + 0.4 * max(0.0, min(1.0, (sim - TOPIC_COSINE) / (1 - TOPIC_COSINE)))
        return _verdict("constructive", conf, lambda: reasons.agreement(a, b, found.matched), found.matched, found.clashed)
    return None


def same_object_otherwise(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled | None:
    if found.same_object:
        return _verdict("partial", 0.55, lambda: reasons.same_object(a, b), found.matched, found.clashed)
    return None


def nothing_in_common(a: Analysis, b: Analysis, sim: float, found: Findings) -> Ruled:
    return _verdict("independent", 0.5, lambda: reasons.nothing_in_common(a, b, sim), found.matched, found.clashed)


# The order is the judge's logic: the first rule that answers decides. The gates
# come first; the slot rules record matches and clashes (only `people` may answer);
# the decisions weigh what was recorded.
GATES = (different_objects, different_topics, retraction)
SLOT_RULES = (quantities, times, days, places, people, roles, states, negation)
DECISIONS = (
    hedge,
    clash_of_other_subjects,
    contradiction,
    restriction,
    same_statement_other_subjects,
    other_attribute,
    agreement,
    same_object_otherwise,
    nothing_in_common,
)
RULES = GATES + SLOT_RULES + DECISIONS


def decide(a: Analysis, b: Analysis, sim: float, found: Findings) -> tuple[Ruled, bool]:
    """The verdict of the first rule that answers, with every slot compared into `found`
    even when a gate answers first (the learned judge reads them all), and whether two
    people share a personal condition. A verdict keeps the matches and clashes recorded
    when it was made."""
    verdict = None
    for rule in GATES:
        verdict = rule(a, b, sim, found)
        if verdict is not None:
            break
    personal_other = False
    for rule in SLOT_RULES:
        answer = rule(a, b, sim, found)
        if answer is not None:  # only `people`: two people, one kind of condition
            personal_other = True
            verdict = verdict or answer
    if verdict is None:
        for rule in DECISIONS:
            verdict = rule(a, b, sim, found)
            if verdict is not None:
                break
    assert verdict is not None, "the last decision always answers"
    return verdict, personal_other


# --- verdicts and their reasons


def _places_compatible(a: frozenset, b: frozenset) -> bool:
    return a <= b or b <= a


class Ruled:
    """A rule's verdict, its reason written when first read (`verdict()` makes the Verdict).
    The learned judge reads the reason only where it agrees with the rules, and writing one
    costs about a quarter of judging a pair."""

    __slots__ = ("relation", "confidence", "matched", "clashed", "_explain", "_reason")

    def __init__(self, relation: str, confidence: float, explain: Callable[[], str], matched: tuple, clashed: tuple):
        self.relation, self.confidence, self.matched, self.clashed = relation, confidence, matched, clashed
        self._explain, self._reason = explain, None

    @property
    def reason(self) -> str:
        if self._reason is None:
            self._reason = self._explain()
        return self._reason

    def verdict(self) -> Verdict:
        return Verdict(self.relation, self.confidence, self.reason, self.matched, self.clashed)


def _verdict(relation: str, confidence: float, explain: Callable[[], str], matched, clashed) -> Ruled:
    return Ruled(relation, round(min(1.0, max(0.0, confidence)), 3), explain, tuple(matched), tuple(clashed))


def _fmt_day(kind_: str, v) -> str:
    if kind_ == "sol":
        return f"sol {v}"
    if kind_ == "date":
        return f"{v[0]:02d}-{v[1]:02d}"
    if kind_ == "relative":
        return {0: "today", 1: "tomorrow", -1: "yesterday"}.get(v, f"day {v:+d}")
    return str(v)
