"""One maker per sub-kind for scripts/make_judge_dev.py: (rng) -> (a, b, topic) or None."""

from __future__ import annotations

import judge_dev_words as W
from judge_dev_render import (
    OTHER_STATUS, PROBLEMS, STATUS_GROUPS, action_sentence, cap, count_text, day_text, event, event_sentence,
    in_unit, name, new_object, other_id, person, pick, quantity_fact, quantity_sentence, state_fact,
    state_sentence, time_text,
)


def _state_pair(rng, same_pole: bool, negate_b: bool = False):
    o, axis, pole = state_fact(rng)
    words = W.STATES[axis]
    wa = pick(rng, words[pole])
    wb = pick(rng, words[pole if same_pole else 1 - pole])
    a = state_sentence(rng, name(rng, o), wa)
    b = state_sentence(rng, name(rng, o), wa if negate_b else wb, negated=negate_b)
    return a, b, o["kind"]


def _fact(rng):
    """Any simple fact and a function that renders it again (for hedges, retractions, other objects)."""
    r = rng.randrange(4)
    if r == 0:
        o, axis, pole = state_fact(rng)
        word = pick(rng, W.STATES[axis][pole])
        return o, lambda obj, style=None: state_sentence(rng, name(rng, obj), word, style=style), o["kind"]
    if r == 1:
        o, qkind, attrs, units, base = quantity_fact(rng)
        value = in_unit(base, pick(rng, units))
        return o, lambda obj, style=None: quantity_sentence(rng, name(rng, obj), attrs, value), o["kind"]
    o = new_object(rng)
    action, who = pick(rng, W.ACTIONS), person(rng)
    return o, lambda obj, style=None: action_sentence(rng, name(rng, obj), action, who), o["kind"]


def paraphrase(rng):
    r = rng.randrange(6)
    if r <= 1:
        return _state_pair(rng, same_pole=True)
    if r == 2:
        o, action, who = new_object(rng), pick(rng, W.ACTIONS), person(rng)
        return action_sentence(rng, name(rng, o), action, who), action_sentence(rng, name(rng, o), action, who), o["kind"]
    if r == 3:
        o, qkind, attrs, units, base = quantity_fact(rng)
        value = in_unit(base, pick(rng, units))
        return quantity_sentence(rng, name(rng, o), attrs, value), quantity_sentence(rng, name(rng, o), attrs, value), o["kind"]
    if r == 4:
        key, phrase, verbs = event(rng)
        when = time_text(rng, rng.randrange(6, 20) * 60 + pick(rng, [0, 15, 30, 45]))
        return event_sentence(rng, phrase, verbs, when), event_sentence(rng, phrase, verbs, when), "event:" + key
    item, domain = pick(rng, W.STORED_ITEMS)
    place = pick(rng, W.STORE_PLACES)
    forms = [f"{cap(item)} are stored in {place}.", f"{cap(item)} are kept in {place}.",
             f"You will find {item} in {place}.", f"{cap(place)} is where {item} are kept.", f"{cap(item)}: {place}"]
    return pick(rng, forms), pick(rng, forms), "item:" + item


def double_negation(rng):
    o = new_object(rng)
    axes = [a for a in o["axes"] if a in W.BINARY]
    if rng.random() < 0.3 or not axes:
        p = pick(rng, PROBLEMS)
        forms = [f"No {p} on {name(rng, o)}.", f"{cap(name(rng, o))} shows no {p}.", f"There are no {p} at {name(rng, o)}.",
                 f"{cap(name(rng, o))}: no {p} found"]
        return pick(rng, forms[:2]), pick(rng, forms[2:]), o["kind"]
    axis = pick(rng, axes)
    pole = rng.randrange(2)
    a = state_sentence(rng, name(rng, o), pick(rng, W.STATES[axis][1 - pole]), negated=True)
    b = state_sentence(rng, name(rng, o), pick(rng, W.STATES[axis][pole]))
    return a, b, o["kind"]


def unit_conversion(rng):
    o, qkind, attrs, units, base = quantity_fact(rng)
    if len(units) < 2:
        return None
    ua, ub = rng.sample(units, 2)
    a = quantity_sentence(rng, name(rng, o), attrs, in_unit(base, ua))
    b = quantity_sentence(rng, name(rng, o), attrs, in_unit(base, ub))
    return a, b, o["kind"]


def time_format(rng):
    key, phrase, verbs = event(rng)
    minutes = rng.randrange(5, 22) * 60 + pick(rng, [0, 0, 30, 15])
    for _ in range(5):
        ta, tb = time_text(rng, minutes), time_text(rng, minutes)
        if ta != tb:
            return event_sentence(rng, phrase, verbs, ta), event_sentence(rng, phrase, verbs, tb), "event:" + key
    return None


def elaboration(rng):
    o, render, topic = _fact(rng)
    a = render(o, style=0)
    extra = pick(rng, W.ELABORATIONS)
    return a, a.rstrip(".") + extra + ".", topic


def negation(rng):
    if rng.random() < 0.5:
        return _state_pair(rng, same_pole=True, negate_b=True)
    o, action, who = new_object(rng), pick(rng, W.ACTIONS), person(rng)
    return action_sentence(rng, name(rng, o), action, who), action_sentence(rng, name(rng, o), action, who, negated=True), o["kind"]


def antonym(rng):
    return _state_pair(rng, same_pole=False)


def number(rng):
    if rng.random() < 0.3:
        n, m = rng.sample(range(2, 40), 2)
        place = pick(rng, W.STORE_PLACES)
        thing = pick(rng, ["pallets", "parcels", "crates", "spare tyres", "oxygen cylinders"])
        forms = [f"There are {{}} {thing} in {place}.", f"{cap(place)} holds {{}} {thing}.", f"{cap(thing)} in {place}: {{}}"]
        return pick(rng, forms).format(count_text(rng, n)), pick(rng, forms).format(count_text(rng, m)), "count:" + thing
    o, qkind, attrs, units, base = quantity_fact(rng)
    other = base * pick(rng, [0.4, 0.5, 0.6, 1.5, 1.8, 2.5])
    return (quantity_sentence(rng, name(rng, o), attrs, in_unit(base, pick(rng, units))),
            quantity_sentence(rng, name(rng, o), attrs, in_unit(other, pick(rng, units))), o["kind"])


def time_clash(rng):
    key, phrase, verbs = event(rng)
    ma, mb = rng.sample([h * 60 + m for h in range(6, 22) for m in (0, 30)], 2)
    return event_sentence(rng, phrase, verbs, time_text(rng, ma)), event_sentence(rng, phrase, verbs, time_text(rng, mb)), "event:" + key


def day_clash(rng):
    key, phrase, verbs = event(rng)
    kind = pick(rng, ["weekday", "date"])
    da, db = rng.sample(range(7) if kind == "weekday" else range(0, 12 * 28, 3), 2)
    return event_sentence(rng, phrase, verbs, day_text(rng, da, kind)), event_sentence(rng, phrase, verbs, day_text(rng, db, kind)), "event:" + key


def place_clash(rng):
    if rng.random() < 0.5:
        item, _ = pick(rng, W.STORED_ITEMS)
        pa, pb = rng.sample(W.STORE_PLACES, 2)
        forms = [f"{cap(item)} are stored in {{}}.", f"{cap(item)} are kept in {{}}.", f"{cap(item)}: {{}}", f"We moved {item} to {{}}."]
        return pick(rng, forms).format(pa), pick(rng, forms).format(pb), "item:" + item
    key, phrase, verbs = event(rng)
    pa, pb = rng.sample(W.EVENT_PLACES, 2)
    forms = [f"{cap(phrase)} is in {{}}.", f"{cap(phrase)} will be held in {{}}.", f"{cap(phrase)} takes place in {{}}."]
    return pick(rng, forms).format(pa), pick(rng, forms).format(pb), "event:" + key


def person_clash(rng):
    pa, pb = person(rng), person(rng)
    if pa.split()[-1] in pb or pb.split()[-1] in pa:
        return None
    if rng.random() < 0.5:
        duty, _ = pick(rng, W.DUTIES)
        forms = [f"{cap(duty)} today is {{}}.", f"{{}} is {duty} today.", f"{cap(duty)}: {{}}"]
        return pick(rng, forms).format(pa), pick(rng, forms).format(pb), "duty:" + duty
    key, phrase, verbs = event(rng)
    active, passive = pick(rng, W.LEAD_VERBS)
    forms = [f"{{}} {active} {phrase}.", f"{cap(phrase)} {passive} {{}}."]
    return pick(rng, forms).format(pa), pick(rng, forms).format(pb), "event:" + key


def state_change(rng):
    if rng.random() < 0.4:
        key = pick(rng, sorted(OTHER_STATUS))
        pattern, statuses = OTHER_STATUS[key]
        subj = pattern.format(n=rng.randint(2, 40))
        sa, sb = rng.sample(statuses, 2)
        return f"{cap(subj)} {sa}.", f"{cap(subj)} {sb}.", key
    group = pick(rng, sorted(STATUS_GROUPS))
    kinds, statuses = STATUS_GROUPS[group]
    o = new_object(rng, kinds)
    sa, sb = rng.sample(statuses, 2)
    return f"{cap(name(rng, o))} {sa}.", f"{cap(name(rng, o))} {sb}.", o["kind"]


def retraction(rng):
    o, render, topic = _fact(rng)
    a = render(o, style=0)
    clause = a.rstrip(".")
    clause = clause[0].lower() + clause[1:]
    return a, pick(rng, W.RETRACTIONS).format(fact=clause), topic


def hedge(rng):
    o, axis, pole = state_fact(rng)
    word, subj = pick(rng, W.STATES[axis][pole]), name(rng, o)
    a = state_sentence(rng, subj, word, style=0)
    if rng.random() < 0.5:
        b = f"{cap(subj)} {pick(rng, W.HEDGES)} {word}."
    else:
        b = f"{pick(rng, W.HEDGE_PREFIXES)} {subj} is {word}."
    return a, b, o["kind"]


def other_attribute(rng):
    o = new_object(rng, [k for k in W.EQUIPMENT if any(k in q[3] for q in W.QUANTITIES.values())])
    _, qkind, attrs, units, base = quantity_fact(rng, o)
    a = quantity_sentence(rng, name(rng, o), attrs, in_unit(base, pick(rng, units)))
    fact = pick(rng, W.OTHER_FACTS[o["domain"]]).format(month=pick(rng, W.MONTHS), year=rng.randint(2009, 2024))
    if rng.random() < 0.5:
        b = f"{cap(name(rng, o))} {fact}."
    else:
        axis = pick(rng, [x for x in o["axes"] if x not in ("charge", "load")] or ["work"])
        b = state_sentence(rng, name(rng, o), pick(rng, W.STATES[axis][rng.randrange(2)]))
    return a, b, o["kind"]


def qualified(rng):
    r = rng.randrange(3)
    o, axis, pole = state_fact(rng)
    word = pick(rng, W.STATES[axis][pole])
    noun = o["nouns"][0]
    if r == 0:
        a = f"All the {noun}s on site are {word}."
        b = pick(rng, [f"All the {noun}s on site are {word} except {name(rng, o, noun)}.", f"Most of the {noun}s on site are {word}.",
                       f"Only some of the {noun}s on site are {word}."])
        return a, b, o["kind"]
    a = state_sentence(rng, name(rng, o), word, style=0)
    tail = pick(rng, [", but only in the mornings", " except during the night shift", " only at low load", ", apart from the weekly test"])
    return a, a.rstrip(".") + tail + ".", o["kind"]


def unrelated(rng):
    oa, ra, ta = _fact(rng)
    ob, rb, tb = _fact(rng)
    if oa["domain"] == ob["domain"]:
        return None
    return ra(oa), rb(ob), ta


def shared_vocabulary(rng):
    r = rng.randrange(4)
    if r <= 1:
        o, render, topic = _fact(rng)
        return render(o, style=0), render(other_id(rng, o), style=0), topic
    if r == 2:
        pa, pb = rng.sample(W.FIRST, 2)
        thing = pick(rng, ["laptop", "badge", "locker", "radio", "headset"])
        state = pick(rng, ["needs a new battery", "is broken", "was returned to IT", "is missing", "is in the lost property box"])
        return f"{pa}'s {thing} {state}.", f"{pb}'s {thing} {state}.", "owned:" + thing
    key, phrase, verbs = event(rng)
    mods = pick(rng, [("north", "south"), ("staging", "production"), ("morning", "evening"), ("east", "west"), ("main", "backup")])
    noun = pick(rng, ["site", "cluster", "shift", "warehouse", "generator", "gate"])
    state = pick(rng, ["is fully staffed", "is running out of space", "was inspected today", "is closed for the day", "is back online"])
    return f"The {mods[0]} {noun} {state}.", f"The {mods[1]} {noun} {state}.", "modified:" + noun


MAKERS = {
    "paraphrase": paraphrase, "double_negation": double_negation, "unit_conversion": unit_conversion,
    "time_format": time_format, "elaboration": elaboration, "negation": negation, "antonym": antonym,
    "number": number, "time": time_clash, "day": day_clash, "place": place_clash, "person": person_clash,
    "state_change": state_change, "retraction": retraction, "hedge": hedge, "other_attribute": other_attribute,
    "qualified": qualified, "unrelated": unrelated, "shared_vocabulary": shared_vocabulary,
}
