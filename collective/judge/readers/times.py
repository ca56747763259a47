"""Clock times ("3 pm", "15:00", "1500 hours", "noon") and days (weekdays,
sols, dates, "tomorrow")."""

from __future__ import annotations

from .. import lexicon as L
from .numbers import unit_at
from .scan import Scan

# every word `read_days` reacts to (weekday abbreviations as lower-cased tokens)
_DAY_WORDS = (frozenset(L.WEEKDAYS) | frozenset(d + "s" for d in L.WEEKDAYS) | frozenset(a.lower() for a in L.WEEKDAY_ABBREV)
              | {"sol"} | frozenset(k.replace(" ", "_") for k in L.RELATIVE_DAYS) | frozenset(L.MONTHS))


def read_times(s: Scan) -> None:
    """Clock times as minutes after midnight; a time that may be either half of the day as both."""
    low, kind, used, n = s.low, s.kind, s.used, s.n
    times: set[int] = set()
    time_text: list[str] = []
    for i in [i for i, k in enumerate(kind) if k == "n" or k == "t" or low[i] in L.NAMED_TIMES]:
        if used[i]:
            continue
        k = kind[i]
        w = low[i]
        if k == "t":
            h, m = w.split(":")
            ap, j = _day_part(low, n, i + 1)
            if j < n and low[j] in ("hours", "hrs", "h"):
                j += 1
            # "07:15" and "19:15" are 24-hour readings; "7:15" may be either half of the day
            _add_time(s, times, time_text, int(h), int(m), ap or ("24" if h.startswith("0") or int(h) > 12 else None), i, j)
        elif k == "n" and "." not in w and "," not in w and not w.startswith("-"):
            v = int(w)
            ap, j = _day_part(low, n, i + 1)
            before = _minutes_before(s, i, ap is not None) if 1 <= v <= 12 and unit_at(s, i + 1) is None else None
            if before is not None:  # "quarter to 8", "20 past 7", "half 5"
                start, minutes = before
                _add_time(s, times, time_text, (v - 1 if minutes < 0 else v) % 24 or (12 if minutes < 0 else 0),
                          minutes % 60, ap, start, j)
            elif ap and 1 <= v <= 12:
                _add_time(s, times, time_text, v, 0, ap, i, j)
            elif len(w) == 4 and v % 100 < 60 and v // 100 < 24 and (
                (i + 1 < n and low[i + 1] in ("hours", "hrs", "h", "hr", "z", "utc", "local", "lmst"))
                or (i > 0 and low[i - 1] in ("at", "from", "until", "till", "by", "before", "after", "since")
                    and unit_at(s, i + 1) is None)  # "at 1100 °C" is a temperature
            ):
                j = i + 1
                if j < n and low[j] in ("hours", "hrs", "h", "hr", "z"):
                    j += 1
                _add_time(s, times, time_text, v // 100, v % 100, "24", i, j)
            elif i + 1 < n and low[i + 1] == "oclock" and 1 <= v <= 12:
                ap, j = _day_part(low, n, i + 2)
                _add_time(s, times, time_text, v, 0, ap, i, j)
        elif w in L.NAMED_TIMES:
            mins = L.NAMED_TIMES[w]
            _add_time(s, times, time_text, mins // 60, mins % 60, "24", i, i + 1)
    s.times, s.time_text = times, time_text


def _minutes_before(s: Scan, i: int, day_part: bool) -> tuple[int, int] | None:
    """A clock phrase before the hour at token i: "quarter past", "half past", "20 to",
    "5 minutes past", British "half 5" (5:30). (its first token, minutes after the hour;
    negative for "to"). Minutes in digits need a day part after or "at" before: "5 to 10"
    alone is a range."""
    low, kind = s.low, s.kind
    if i >= 2 and low[i - 1] in ("past", "after", "to") and not s.used[i - 1]:
        k = i - 2
        if low[k] in ("minutes", "mins", "min") and k >= 1:
            k -= 1
        if low[k] == "quarter":
            m = 15
        elif low[k] == "half" and low[i - 1] != "to":
            m = 30
        elif (kind[k] == "n" and low[k].isdigit() and 1 <= int(low[k]) < 60
              and (day_part or k >= 1 and low[k - 1] in ("at", "around", "about"))):
            m = int(low[k])
        else:
            return None
        if k >= 1 and low[k - 1] == "a" and low[k] == "quarter":
            k -= 1
        return k, (-m if low[i - 1] == "to" else m)
    if i >= 1 and low[i - 1] == "half" and (i < 2 or low[i - 2] not in ("and", "a", "one")):
        return i - 1, 30
    return None


def _add_time(s: Scan, times: set, time_text: list, h: int, m: int, ampm: str | None, i0: int, i1: int) -> None:
    """Record the time h:m written at tokens i0..i1.

    ampm: "am", "pm", "24" (a 24-hour reading) or None (either half of the day)."""
    if not (0 <= h <= 24 and 0 <= m < 60):
        return
    if ampm == "pm" and h < 12:
        h += 12
    elif ampm == "am" and h == 12:
        h = 0
    times.add((h % 24) * 60 + m)
    if ampm is None and 1 <= h <= 12:
        times.add(((h + 12) % 24) * 60 + m)
    time_text.append(" ".join(s.orig[i0:i1]))
    for k in range(i0, i1):
        s.used[k] = True


def _day_part(low: list, n: int, j: int) -> tuple[str | None, int]:
    """ "pm", "in the afternoon", "at night" at token j: the half of the day and the index after it."""
    if j < n and low[j] in L.AM_PM:
        return low[j], j + 1
    if j + 2 < n and low[j] == "in" and low[j + 1] == "the" and low[j + 2] in L.DAY_PARTS:
        return L.DAY_PARTS[low[j + 2]], j + 3
    if j + 1 < n and low[j] == "at" and low[j + 1] == "night":
        return "pm", j + 2
    return None, j


def read_days(s: Scan) -> None:
    """Days by kind: "weekday", "sol", "date" (month, day), "month", "relative" (days from today)."""
    low, orig, kind, used, n = s.low, s.orig, s.kind, s.used, s.n
    days: dict[str, set] = {}
    if _DAY_WORDS.isdisjoint(s.vocab) and "d" not in kind:
        s.days = days
        return
    for i in [i for i, w in enumerate(low) if w in _DAY_WORDS or kind[i] == "d"]:
        w = low[i]
        k = kind[i]
        if k == "d":
            mo, dd = w[len("__date_"):].split("_")
            days.setdefault("date", set()).add((int(mo), int(dd)))
            used[i] = True
            continue
        if k != "w" or used[i]:
            continue
        wd = L.WEEKDAYS.get(w) or L.WEEKDAYS.get(w[:-1] if w.endswith("s") else "")
        if wd is None and orig[i] in L.WEEKDAY_ABBREV and not (orig[i] == "Sun" and i > 0 and low[i - 1] == "the"):
            wd = L.WEEKDAY_ABBREV[orig[i]]
        if wd:
            days.setdefault("weekday", set()).add(wd)
            used[i] = True
        elif w == "sol" and i + 1 < n and kind[i + 1] == "n":
            days.setdefault("sol", set()).add(low[i + 1])
            used[i] = used[i + 1] = True
        elif w.replace("_", " ") in L.RELATIVE_DAYS:
            days.setdefault("relative", set()).add(L.RELATIVE_DAYS[w.replace("_", " ")])
            used[i] = True
        elif w in L.MONTHS:
            _date(s, i, L.MONTHS[w], days)
    s.days = days


def _date(s: Scan, i: int, mo: int, days: dict) -> None:
    """ "March 3", "March 3rd", "3 March", "3rd of March", "the 5th of April", "in May"."""
    low, orig, kind, used, n = s.low, s.orig, s.kind, s.used, s.n
    if i + 1 < n and kind[i + 1] == "n" and "." not in low[i + 1] and 1 <= float(low[i + 1]) <= 31:
        days.setdefault("date", set()).add((mo, int(low[i + 1])))
        used[i] = used[i + 1] = True
        if i + 2 < n and low[i + 2] in L.ORDINAL_SUFFIXES:
            used[i + 2] = True
        return
    j = i - 1
    if j >= 0 and low[j] == "of":
        j -= 1
    if j >= 0 and low[j] in L.ORDINAL_SUFFIXES:
        j -= 1
    if j >= 0 and kind[j] == "n" and "." not in low[j] and 1 <= float(low[j]) <= 31:
        days.setdefault("date", set()).add((mo, int(low[j])))
        for k in range(j, i + 1):
            used[k] = True
        return
    w = low[i]
    # a bare month name; short forms and "May" only when capitalised
    if orig[i][0].isupper() or (len(w) > 3 and w != "may" and w != "sept"):
        days.setdefault("month", set()).add(mo)
        used[i] = True
