"""Facts and their renderings for scripts/make_judge_dev.py: one maker per sub-kind.

A maker takes a random generator and returns (text a, text b, topic) or None.
"""

from __future__ import annotations

import judge_dev_words as W

STATUS_GROUPS = {  # mutually exclusive statuses of one thing
    "vehicle": (["truck", "van", "forklift"], ["is parked at the depot", "is in the workshop for repairs", "is out on delivery", "is on the road to Leeds"]),
    "drone": (["drone", "camera"], ["is charging at base", "is out on the east transect", "is packed for shipping"]),
    "host": (["server", "service", "database"], ["is in maintenance mode", "is serving live traffic", "is being decommissioned"]),
    "plant": (["pump", "compressor", "boiler", "generator"], ["is on standby", "is running at full load", "is isolated for maintenance"]),
}
OTHER_STATUS = {
    "patient": ("the patient in bed {n}", ["is in surgery", "is in recovery", "has been discharged", "is waiting in A&E"]),
    "order": ("order {n}", ["is awaiting payment", "is out for delivery", "has been delivered", "was cancelled"]),
    "ticket": ("ticket {n}", ["is in review", "has been merged and closed", "is still in the backlog"]),
}
PROBLEMS = ["leaks", "errors", "alarms", "faults", "warnings"]


def cap(s: str) -> str:
    return s[0].upper() + s[1:]


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


# --- objects


def new_object(rng, kinds=None) -> dict:
    kind = pick(rng, sorted(kinds or W.EQUIPMENT))
    nouns, ids, domain, axes = W.EQUIPMENT[kind]
    n = rng.randint(1, 9)
    return {"kind": kind, "nouns": nouns, "id": pick(rng, ids), "n": n, "domain": domain, "axes": axes}


def other_id(rng, o: dict) -> dict:
    m = pick(rng, [k for k in range(1, 10) if k != o["n"]])
    return dict(o, n=m)


def name(rng, o: dict, noun: str | None = None) -> str:
    """A phrase for the object: "pump P-103", "the P-103 pump", "P-103"."""
    noun = noun or pick(rng, o["nouns"])
    ident = o["id"].format(o["n"])
    forms = [f"{noun} {ident}", f"the {noun} {ident}", f"{noun} {ident}"]
    if not ident.isdigit():
        forms.append(f"the {ident} {noun}")
    return pick(rng, forms)


STATE_FORMS = ("{S} is {neg}{word}.", "{S}: {neg}{word}", "{S} is {neg}{word} at the moment.",
               "{R} reports that {s} is {neg}{word}.", "{S} was {neg}found {word} on the last round.",
               "Status of {s}: {neg}{word}.")
QUANTITY_FORMS = ("{S}'s {attr} is {value}.", "{Attr} of {s}: {value}", "The {attr} on {s} reads {value}.",
                  "{R} measured the {attr} of {s} at {value}.", "{S} {attr} {value}")


def fill(rng, form: str, subj: str, **words) -> str:
    """A form with its subject (capitalised where it starts a sentence) and a reporter if it has one."""
    reporter = cap(pick(rng, W.REPORTERS)) if "{R}" in form else ""
    return form.format(S=cap(subj), s=subj, R=reporter, **words)


def state_sentence(rng, subj: str, word: str, negated: bool = False, style: int | None = None) -> str:
    style = rng.choice([0, 1, 2, 3, 5] if negated else range(6)) if style is None else style
    return fill(rng, STATE_FORMS[style], subj, word=word, neg="not " if negated else "")


def state_fact(rng, o=None, pole: int | None = None):
    o = o or new_object(rng)
    axis = pick(rng, o["axes"])
    pole = rng.randrange(2) if pole is None else pole
    return o, axis, pole


def action_sentence(rng, subj: str, action, person: str | None, negated: bool = False) -> str:
    active, participle, base = action
    style = rng.randrange(4)
    if person and style == 0:
        return f"{person} {'did not ' + pick(rng, base) if negated else pick(rng, active)} {subj}."
    if person and style == 1:
        return f"{cap(subj)} was {'not ' if negated else ''}{pick(rng, participle)} by {person}."
    if style == 2:
        return f"{cap(subj)} {'has not been' if negated else 'has been'} {pick(rng, participle)}."
    return f"{cap(subj)} {'not ' if negated else ''}{pick(rng, participle)} today"


def person(rng) -> str:
    r = rng.random()
    if r < 0.4:
        return f"{pick(rng, W.TITLES)} {pick(rng, W.LAST)}"
    if r < 0.7:
        return pick(rng, W.FIRST)
    return f"{pick(rng, W.FIRST)} {pick(rng, W.LAST)}"


# --- quantities


def fmt_number(x: float) -> str:
    if abs(x) >= 100:
        return f"{round(x):,}" if abs(x) >= 10000 else str(round(x))
    if abs(x) >= 10:
        return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}"
    return f"{x:.2f}".rstrip("0").rstrip(".")


def in_unit(base: float, unit) -> str:
    symbol, factor = unit
    if symbol == "°C":
        return f"{fmt_number(base)} °C"
    if symbol == "°F":
        return f"{fmt_number(base * 9 / 5 + 32)} °F"
    value = fmt_number(base / factor)
    return f"{value}%" if symbol == "%" else f"{value} {symbol}"


def quantity_fact(rng, o=None):
    o = o or new_object(rng, [k for k in W.EQUIPMENT if any(k in q[3] for q in W.QUANTITIES.values())])
    qkind = pick(rng, sorted(k for k, q in W.QUANTITIES.items() if o["kind"] in q[3]))
    attrs, units, (lo, hi), _ = W.QUANTITIES[qkind]
    base = float(rng.randint(int(lo), int(hi)))
    if qkind == "battery":
        units = [units[0]]
    return o, qkind, attrs, units, base


def quantity_sentence(rng, subj: str, attrs, value: str) -> str:
    attr = pick(rng, attrs)
    return fill(rng, QUANTITY_FORMS[rng.randrange(5)], subj, attr=attr, Attr=cap(attr), value=value)


# --- times, days, places


def time_text(rng, minutes: int) -> str:
    h, m = divmod(minutes, 60)
    h12 = h % 12 or 12
    ampm = "am" if h < 12 else "pm"
    forms = [f"{h:02d}:{m:02d}", f"{h12}:{m:02d} {ampm}", f"{h:02d}{m:02d} hours", f"{h:02d}{m:02d} hrs",
             f"{h12}:{m:02d} {'a.m.' if h < 12 else 'p.m.'}"]
    if m == 0:
        forms += [f"{h12} {ampm}", f"{h12} o'clock in the {'morning' if h < 12 else 'afternoon' if h < 18 else 'evening'}"]
    if minutes == 720:
        forms.append("noon")
    if m == 30:
        forms.append(f"half past {h12} in the {'morning' if h < 12 else 'afternoon' if h < 18 else 'evening'}")
    return pick(rng, forms)


def day_text(rng, day: int, kind: str) -> str:
    if kind == "weekday":
        return pick(rng, [f"on {W.WEEKDAYS[day]}", f"on {W.WEEKDAYS[day]}", f"this {W.WEEKDAYS[day]}"])
    month, d = divmod(day, 28)
    m = W.MONTHS[month]
    suffix = "th" if 10 <= d + 1 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get((d + 1) % 10, "th")
    return pick(rng, [f"on {d + 1} {m}", f"on {m} {d + 1}", f"on 2025-{month + 1:02d}-{d + 1:02d}", f"on the {d + 1}{suffix} of {m}"])


def event(rng):
    key = pick(rng, sorted(W.EVENTS))
    nouns, verbs, domain = W.EVENTS[key]
    return key, pick(rng, nouns), verbs


def event_sentence(rng, phrase: str, verbs, when: str) -> str:
    style = rng.randrange(5)
    verb = pick(rng, verbs)
    if style == 0:
        return f"{cap(phrase)} {verb} at {when}." if not when.startswith(("on ", "this ")) else f"{cap(phrase)} {verb} {when}."
    if style == 1:
        return f"{cap(phrase)}: {when.removeprefix('on ')}"
    if style == 2:
        at = "" if when.startswith(("on ", "this ")) else "at "
        return f"{cap(at + when)}, {phrase} {verb}."
    if style == 3:
        at = "" if when.startswith(("on ", "this ")) else "at "
        return f"{cap(pick(rng, W.REPORTERS))} says {phrase} {verb} {at}{when}."
    at = "" if when.startswith(("on ", "this ")) else "for "
    return f"{cap(phrase)} is scheduled {at}{when}."


def count_text(rng, n: int) -> str:
    return W.NUMBER_WORDS[n] if n <= 20 and rng.random() < 0.5 else str(n)
