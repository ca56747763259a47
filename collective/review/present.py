"""How the review page says things to a person: what differs between two claims, word by
word; times as "3 h ago" (the exact time on hover); the judge's numbers in words."""

from __future__ import annotations

import difflib
import math
import re
from datetime import datetime, timezone


SAME, GONE, NEW = "same", "gone", "new"


def word_diff(a: str, b: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Each claim as (kind, word) runs: words both share are "same"; a's words b lacks are
    "gone", b's words a lacks "new". What differs is what a reviewer reads first."""
    wa, wb = a.split(), b.split()
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=[w.lower() for w in wa], b=[w.lower() for w in wb],
                                                      autojunk=False).get_opcodes():
        if op == "equal":
            left.append((SAME, " ".join(wa[i1:i2])))
            right.append((SAME, " ".join(wb[j1:j2])))
            continue
        if i2 > i1:
            left.append((GONE, " ".join(wa[i1:i2])))
        if j2 > j1:
            right.append((NEW, " ".join(wb[j1:j2])))
    return left, right


def short(value: object, n: int = 8) -> str:
    """An id as the page shows it (the whole on hover): a UUID's last characters, since
    those made at about the same time share their first ones; a hash's first."""
    text = str(value)
    return text[-n:] if len(text) == 36 and text.count("-") == 4 else text[:n]


def _parsed(stamp: str) -> datetime | None:
    """An ISO-8601 time, in UTC when it names no zone; None when it is not one."""
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return then if then.tzinfo else then.replace(tzinfo=timezone.utc)


def ago(stamp: str | None, now: datetime | None = None) -> str:
    """An ISO-8601 time as a person says it: "just now", "5 min ago", "3 h ago", "2 days ago"."""
    then = _parsed(stamp) if stamp else None
    if then is None:
        return stamp or ""
    seconds = ((now or datetime.now(timezone.utc)) - then).total_seconds()
    if seconds < 0:
        return "in the future"
    for unit, size in (("day", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if unit == 'day' and count > 1 else ''} ago"
    return "just now"


def exact(stamp: str | None) -> str:
    """The time to the second, in UTC, for the hover text."""
    then = _parsed(stamp) if stamp else None
    return then.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if then else (stamp or "")


def closeness(similarity: float) -> str:
    """The cosine of the two claims, in words."""
    if similarity >= 0.9:
        return "almost the same words"
    if similarity >= 0.75:
        return "about the same thing"
    if similarity >= 0.5:
        return "related"
    return "loosely related"


def stances(phase_a: float, phase_b: float) -> str:
    """How the two claims' own stances stand to each other, in words. Not the case's phase
    difference: that is the judge's relation (every contradiction reads opposite there)."""
    turned = abs(math.remainder(phase_a - phase_b, 2 * math.pi))
    if turned > 2.6:
        return "opposite: one affirms what the other denies"
    if turned < 0.5:
        return "the same stance: they differ in what they say"
    return "one is less certain than the other"


def standing(origin: str, content: str, copies: list[dict], texts: dict[str, str]) -> list[dict]:
    """Each agent standing with a claim, once: who said it, then the holders of its copies
    (one agent may hold several, its own earlier claim absorbed into this one among them).
    Each row beyond the claim comes with its text where that says something else than the
    claim's, so a reviewer never reads "the same claim" over other words."""
    said = " ".join(content.split()).lower()
    found: dict[str, dict] = {origin: {"agent": origin, "said_it": True, "rows": []}}
    for copy in copies:
        who = copy.get("origin_agent") or "an unknown agent"
        text = texts.get(copy["memory"]) or ""
        found.setdefault(who, {"agent": who, "said_it": False, "rows": []})["rows"].append(
            {"memory": copy["memory"], "text": text if text and " ".join(text.split()).lower() != said else None})
    return list(found.values())


def listed(names: list[str]) -> str:
    """Names as a sentence says them: "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def reach(here: str, others: list[str], *, shared: bool) -> str:
    """When a decision recorded on `here` reaches every other agent, as the page does it: it
    records the decision here and shares it on the commons at once; it pulls for no other
    agent, so each takes it at its own next pull (from then on, where the commons could not
    be reached)."""
    if others:
        they = f"{listed(others)} take{'s' if len(others) == 1 else ''} it at {'its' if len(others) == 1 else 'their'}"
    else:
        they = "every other agent takes it at its"
    if shared:
        return f"{here} holds it now, and the commons has it already; {they} next pull (this page pulls for no agent)."
    return (f"{here} holds it, but the commons could not be reached: it goes out with {here}'s next push or pull, "
            f"and {they} next pull after that.")


def verdict_mark(verdict: dict | None) -> str:
    """Which verdict a person saw standing (its reviewer and time): a form that acts on it
    carries this, so a verdict that came meanwhile is shown before anything is done."""
    return f"{verdict.get('by')}|{verdict.get('at')}" if verdict else ""


_CLI_ASIDE = re.compile(r"\s*\([^()]*(?:`cmem |\bcmem |(?<![\w-])--[a-z])[^()]*\)")
_CLI_WORD = re.compile(r"`cmem |\bcmem |(?<![\w-])--[a-z]")


def plain(message: str) -> str:
    """An error line in the page's words: the asides and clauses that tell a command line
    what to run (a flag, a `cmem` command) are left out; the page offers its own way."""
    text = _CLI_ASIDE.sub("", message)
    found = _CLI_WORD.search(text)
    if found:
        cut = max(text.rfind(sep, 0, found.start()) for sep in (":", ";", ","))
        if cut > 0:
            text = text[:cut]
    return text.rstrip(" :;,")
