"""Reasons a person can read: what the rules found, said in whole words of the two texts.

A reason quotes the texts, not what the readers made of them: the claim around
the clashing word as written ("a says the EVA starts at 14:00; b says 09:00."),
never a stem ("saf") or a slot's name ("state", "negation"). The two texts are
"a" and "b", in the order the judge was given them. A finding that cannot be
found in the text as written (a number spelt out, a date in another form) is
shown by the whole claim that holds it (`quoting`).
"""

from __future__ import annotations

import re

from . import lexicon as L
from .analysis import Analysis
from .quoting import WORD, Pair, find, locate, verb_like

# slots whose values a side can be named by alone ("b says 16 kPa")
VALUE_SLOTS = frozenset({"number", "time", "day", "place", "person", "role"})


# --- the rules' reasons (`rules`): one sentence each, from the findings' tags


def _split(tag: str) -> tuple[str, str, str]:
    """ "number:101 kPa vs 87 kPa" -> ("number", "101 kPa", "87 kPa"); a match ("time:6 pm = 18:00",
    "person:chen") gives both sides, the same value when written once."""
    slot, _, detail = tag.partition(":")
    for sep in (" vs ", " = "):
        if sep in detail:
            left, _, right = detail.partition(sep)
            return slot, left, right
    return slot, detail, detail


def different_objects(a: Analysis, b: Analysis, different: list[str]) -> str:
    p = Pair(a, b)
    left, _, right = different[0].partition(" vs ")
    if left.endswith("'s"):  # "Chen's vs Patel's": the owner and what is owned
        sa, sb = _owned(a, left.removesuffix("'s")), _owned(b, right.removesuffix("'s"))
    else:
        sa, sb = locate(a, "object", left), locate(b, "object", right)
    if sa and sb:
        return f"They are about different objects: {p.quote(a, sa)} and {p.quote(b, sb)}."
    return f"They are about different objects: {p.both_say()}."


def _owned(x: Analysis, owner: str) -> tuple[int, int] | None:
    span = locate(x, "owner", owner)
    if span:
        m = re.match(r"\s+(\w[\w-]*)", x.text[span[1]:])
        if m and m.group(1).lower() not in L.STOPWORDS:
            return span[0], span[1] + m.end()
    return span


def different_topics(sim: float) -> str:
    return f"They are about different things: their cosine similarity is only {sim:.2f} and they share no object."


def retraction(a: Analysis, b: Analysis) -> str:
    p = Pair(a, b)
    if b.retracts:
        return f"a says {p.claim(a)}; b takes it back: {p.claim(b)}."
    return f"b says {p.claim(b)}; a takes it back: {p.claim(a)}."


def different_people(a: Analysis, b: Analysis) -> str:
    p = Pair(a, b)
    sa = locate(a, "person", sorted(a.people)[0]) if a.people else None
    sb = locate(b, "person", sorted(b.people)[0]) if b.people else None
    if sa and sb:
        return f"They are about different people: {p.quote(a, sa)} and {p.quote(b, sb)}."
    return f"They are about different people: {p.both_say()}."


def hedge(a: Analysis, b: Analysis) -> str:
    p = Pair(a, b)
    if b.hedged:
        y = p.claim(b)
        return f"b only says {y}; a says {p.shorten(y, p.claim(a))}."
    x, y = p.sides()
    return f"a only says {x}; b says {y}."


def restriction(a: Analysis, b: Analysis) -> str:
    p = Pair(a, b)
    if b.qualified:
        x, y = p.sides()
        return f"a says {x}; b narrows that down: {y}."
    y = p.claim(b)
    return f"b says {y}; a narrows that down: {p.shorten(y, p.claim(a))}."


def contradiction(a: Analysis, b: Analysis, clashed) -> str:
    return versus(a, b, clashed) + "."


def versus(a: Analysis, b: Analysis, clashed) -> str:
    """ "a says X; b says Y": the claims around the first clash, b by its value alone when
    only one value clashes ("a says the tank holds 150 L; b says 90 L")."""
    p = Pair(a, b)
    at_a = at_b = None
    values_b: list[str] = []
    only_values = True
    for tag in clashed:
        slot, left, right = _split(tag)
        sa, sb = locate(a, slot, left), locate(b, slot, right)
        at_a, at_b = at_a or sa, at_b or sb
        if slot in VALUE_SLOTS and sb:
            value = p.quote(b, sb)
            if value not in values_b:
                values_b.append(value)
        else:
            only_values = False
    if only_values and len(values_b) == 1 and at_a and at_b and _same_but(a.text, at_a, b.text, at_b):
        return f"a says {p.claim(a, at_a)}; b says {values_b[0]}"
    return p.both_say(at_a, at_b)


def _same_but(x: str, at_x: tuple[int, int], y: str, at_y: tuple[int, int]) -> bool:
    """Whether y says x's words with its value in place of x's: only then may b be named by
    its value alone ("b says Harbor" for another claim read that way was cut mid-sentence)."""
    def rest(text: str, at: tuple[int, int]) -> list[str]:
        return [w.casefold() for w in WORD.findall(text[:at[0]] + " " + text[at[1]:])]
    return rest(x, at_x) == rest(y, at_y)


def _subjects(p: Pair) -> tuple[str, str] | None:
    """What each claim says before the first verb of the words they end on alike:
    ("the telemetry service", "the scheduler service") of "... was restarted at 03:10"."""
    x, y = p.claim(p.a), p.claim(p.b)
    wa, wb = list(WORD.finditer(x)), list(WORD.finditer(y))
    la = [m.group().lower() for m in wa] + [""]
    k = 0
    while k < min(len(wa), len(wb)) and la[-2 - k] == wb[-1 - k].group().lower():
        k += 1
    first = len(wa) - k  # where the shared end starts in a; its first verb ends the subjects
    verb = next((i for i in range(first, len(wa)) if verb_like(la[i], la[i + 1])), None)
    if verb is None or first == 0 or k == len(wb):
        return None
    return x[:wa[verb].start()].strip(), y[:wb[verb - len(wa) + len(wb)].start()].strip()


def other_subjects(a: Analysis, b: Analysis, *, same_statement: bool) -> str:
    p = Pair(a, b)
    start = "They say the same of different subjects" if same_statement else "They are about different subjects"
    subjects = _subjects(p)
    if subjects:
        return f"{start}: {subjects[0]} and {subjects[1]}."
    return f"{start}: {p.both_say()}."


def other_attribute(a: Analysis, b: Analysis) -> str:
    return f"They describe different attributes of the same subject: {Pair(a, b).both_say()}."


def same_object(a: Analysis, b: Analysis) -> str:
    return f"They say different things about the same subject: {Pair(a, b).both_say()}."


def agreement(a: Analysis, b: Analysis, matched) -> str:
    """What both say, in a's claim (b's when shorter by three words), and a value the other
    writes another way ("Both say the EVA starts at 14:00; b writes 14:00 as 2 pm.")."""
    p = Pair(a, b)
    x, y = p.claim(a), p.claim(b)
    a_said = len(y.split()) > len(x.split()) - 3
    said, other, other_name = (x, b, "b") if a_said else (y, a, "a")
    for tag in matched:
        slot, left, right = _split(tag)
        if left == right or slot not in VALUE_SLOTS:
            continue
        mine, theirs = (left, right) if a_said else (right, left)
        span, here = locate(other, slot, theirs), find(said, mine)
        if span and here:
            return f"Both say {said}; {other_name} writes {said[here[0]:here[1]]} as {p.quote(other, span)}."
    return f"Both say {said}."


def nothing_in_common(a: Analysis, b: Analysis, sim: float) -> str:
    return f"They say nothing in common (cosine similarity {sim:.2f}): {Pair(a, b).both_say()}."
