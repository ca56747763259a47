"""Numbers: quantities with units converted to SI ("101 kPa", "-40 °F", "30
litres per minute"), ranges and bounds ("10-15", "at least 5", "about 3"),
and counts of things ("4 crew members")."""

from __future__ import annotations

import math

from .. import lexicon as L
from ..analysis import Quantity
from ..text import CACHE_LIMIT, LOWER_BOUND_TOKENS, STATE_INDEX, UPPER_BOUND_TOKENS, is_verb, stem
from .scan import Scan

# every token a unit can start with (the table's spellings, before the aliases and joins)
_UNIT_FIRST = (frozenset(L.UNITS) | frozenset(L.UNIT_ALIASES) | {"°", "degree", "degrees", "deg", "mb", "m", "cm", "mm", "km"}
               | frozenset(c.lower() for c in L.DATA_CAPITALS))


def parse_number(tok: str) -> float | None:
    try:
        return float(tok.replace(",", ""))
    except ValueError:
        return None


def unit_at(s: Scan, j: int) -> tuple[str, float, float, int] | None:
    """Unit starting at token j: (dim, factor, offset, tokens used)."""
    if j >= s.n or s.low[j] not in _UNIT_FIRST:
        return None
    w = s.low[j]
    o = s.orig[j]
    used = 1
    if w == "°" and j + 1 < s.n and s.low[j + 1] in ("c", "f", "k", "celsius", "fahrenheit"):
        w = "°" + s.low[j + 1][0]
        used = 2
    elif w in ("degree", "degrees", "deg") and j + 1 < s.n and s.low[j + 1] in ("c", "f", "celsius", "fahrenheit"):
        w = "°" + s.low[j + 1][0]
        used = 2
    elif o in L.DATA_CAPITALS:
        w = L.DATA_CAPITALS[o]
    elif w == "mb" and o != "MB":
        w = "mbar"
    elif w in ("m", "cm", "mm", "km") and j + 1 < s.n and s.low[j + 1] in ("³", "3"):
        w = w + "3"
        used = 2
    w = L.UNIT_ALIASES.get(w, w)
    if w in ("m", "km", "l", "ml", "kg", "g", "mi") and j + 2 < s.n and s.low[j + 1] == "/":
        rate = L.TIME_UNIT_FOR_RATE.get(s.low[j + 2].rstrip("s")) or L.TIME_UNIT_FOR_RATE.get(s.low[j + 2])
        if w == "km" and s.low[j + 2] in ("h", "hr", "hour"):
            return ("speed",) + L.UNITS["km/h"][1:] + (3,)
        if w == "m" and s.low[j + 2] in ("s", "sec"):
            return ("speed",) + L.UNITS["m/s"][1:] + (3,)
        if rate:
            dim, f, off = L.UNITS[w]
            return (dim + "/t", f / rate, 0.0, 3)
    u = L.UNITS.get(w)
    if u is None:
        return None
    if w == "c" and o != "C" or w == "f" and o != "F":  # lower-case c/f after a number: not a temperature
        return None
    return u + (used,)


def _rate_suffix(s: Scan, j: int) -> tuple[float, int] | None:
    """'per minute', '/h', 'a day', 'each hour' starting at j (skipping 'of X' up to 3 words)."""
    k = j
    hops = 0
    while k < s.n and hops < 4:
        w = s.low[k]
        if w in ("per", "/", "a", "an", "each", "every") and k + 1 < s.n:
            nxt = s.low[k + 1]
            secs = L.TIME_UNIT_FOR_RATE.get(nxt) or (L.TIME_UNIT_FOR_RATE.get(nxt[:-1]) if nxt.endswith("s") and w == "/" else None)
            if secs:
                return secs, k + 2
            return None
        if s.kind[k] != "w" or w in L.STOPWORDS and w not in ("of",) or is_verb(w):
            return None
        k += 1
        hops += 1
    return None


def read_quantities(s: Scan) -> None:
    """Every number not taken by an earlier reader, as an interval in SI units with what it measures."""
    low, orig, kind, used, n = s.low, s.orig, s.kind, s.used, s.n
    found: list[tuple[int, str, float, float, str, str | None]] = []  # (pos, dim, lo, hi, text, counted noun)
    for i in [i for i, k in enumerate(kind) if k == "n"]:
        if used[i]:
            continue
        v = parse_number(low[i])
        if v is None:
            continue
        lo_v, hi_v, j = _values(s, i, v)
        u = L.UNITS["%"] + (1,) if j < n and low[j] == "%" else unit_at(s, j)
        cmp, approx = _comparator(s, i)
        noun = None
        if u is not None:
            dim, lo_si, hi_si, end = _in_si(s, j, u, lo_v, hi_v)
        else:
            nouns = _counted(s, j)
            dim = "count" if nouns else "number"  # a bare number is never compared
            noun = " ".join(nouns) if nouns else None
            lo_si, hi_si = lo_v, hi_v
            end = j
        lo_q, hi_q = _interval(dim, lo_si, hi_si, cmp, approx)
        used[i] = True
        written = " ".join(orig[i:end]).replace(" / ", "/").replace("° ", "°")
        found.append((i, dim, lo_q, hi_q, written, noun))
    s.quantity_raw = found


def _values(s: Scan, i: int, v: float) -> tuple[float, float, int]:
    """The low and high value of the number v at i ("2 x 250", "10-15", "between 10 and 15"),
    and the index after them."""
    low, kind, used, n = s.low, s.kind, s.used, s.n
    j = i + 1
    if j + 1 < n and low[j] in ("x", "×", "*") and kind[j + 1] == "n":
        v2 = parse_number(low[j + 1])
        if v2 is not None:  # "2 x 250 mg"
            v *= v2
            used[j] = used[j + 1] = True
            j += 2
    lo_v = hi_v = v
    # ranges "10-15 kPa", "10 to 15 kPa", "between 10 and 15 kPa"
    if j + 1 < n and low[j] in ("-", "to", "and") and kind[j + 1] == "n":
        v2 = parse_number(low[j + 1])
        if v2 is not None and (low[j] != "and" or i > 0 and low[i - 1] == "between"):
            lo_v, hi_v = min(v, v2), max(v, v2)
            used[j] = used[j + 1] = True
            j += 2
    return lo_v, hi_v, j


def _in_si(s: Scan, j: int, u: tuple, lo_v: float, hi_v: float) -> tuple[str, float, float, int]:
    """Values with the unit u at j converted to SI, a rate after it included ("30 litres per
    minute", "2 kg of O2 a day"): (dim, low, high, index after the unit)."""
    low, used = s.low, s.used
    dim, factor, offset, ulen = u
    end = j + ulen
    rate = _rate_suffix(s, end)
    if rate and not dim.endswith("/t") and dim not in ("speed", "frequency"):
        secs, end2 = rate
        dim, factor, offset = dim + "/t", factor / secs, 0.0
        for q in range(end, end2):
            if low[q] in ("per", "/", "a", "an", "each", "every") or low[q] in L.TIME_UNIT_FOR_RATE or low[q].rstrip("s") in L.TIME_UNIT_FOR_RATE:
                used[q] = True
    lo_si, hi_si = lo_v * factor + offset, hi_v * factor + offset
    for q in range(j, j + ulen):
        used[q] = True
    return dim, lo_si, hi_si, end


def _interval(dim: str, lo_si: float, hi_si: float, cmp: str | None, approx: bool) -> tuple[float, float]:
    """The interval two quantities must overlap to agree: rounding in conversions, "about",
    and open ends for bounds ("over 20")."""
    if dim == "temperature":
        tol = max(0.6, 0.015 * abs(lo_si - 273.15))
    elif dim in ("count", "number"):
        tol = 0.0
    else:
        tol = 0.025 * max(abs(lo_si), abs(hi_si))  # rounding in conversions
    if approx:
        tol = max(tol, 0.1 * max(abs(lo_si), abs(hi_si)))
    lo_q, hi_q = lo_si - tol, hi_si + tol
    if cmp == "gt":
        hi_q = math.inf
    elif cmp == "lt":
        lo_q = -math.inf
    return lo_q, hi_q


def _comparator(s: Scan, i: int) -> tuple[str | None, bool]:
    """ "over 20", "less than 5", "about 3" just before the number at i."""
    low = s.low
    p = i - 1
    cmp = None
    approx = False
    while p >= 0 and p >= i - 2:
        if low[p] in LOWER_BOUND_TOKENS:
            cmp = "gt"
        elif low[p] in UPPER_BOUND_TOKENS:
            cmp = "lt"
        elif low[p] in L.APPROXIMATORS:
            approx = True
        elif low[p] not in ("the", "a", "of", "at", "to", "is", "by", "be"):
            break
        p -= 1
    return cmp, approx


def _counted(s: Scan, j: int) -> list[str]:
    """The noun(s) a bare number counts: "4 crew members", "3 of the 4 heaters"."""
    low, kind, used, n = s.low, s.kind, s.used, s.n
    nouns: list[str] = []
    q = j
    if q + 1 < n and low[q] == "of":
        q2 = q + 1
        if low[q2] in L.DETERMINERS:
            q2 += 1
        if q2 < n and kind[q2] == "n":
            used[q2] = True
            q = q2 + 1
        elif q2 < n and kind[q2] == "w":
            q = q2
    while q < n and len(nouns) < 3 and kind[q] == "w" and not used[q]:
        wq = low[q]
        if wq in L.STOPWORDS and wq != "more" or is_verb(wq) or wq in STATE_INDEX and nouns:
            break
        if wq not in ("more", "extra", "additional", "other", "new", "spare"):
            nouns.append(stem(wq))
        q += 1
    return nouns


def quantity_records(s: Scan) -> tuple:
    """Quantities of the main clause, each keyed by what it measures: the nearest
    attribute noun ("pressure", "battery") or, for counts, the counted noun."""
    low, kind, n = s.low, s.kind, s.n
    out: list[Quantity] = []
    for pos, dim, lo_q, hi_q, qtext, noun in s.quantity_raw:
        if pos >= s.main_end:
            continue
        if dim == "count":
            key = frozenset(noun.split()) if noun else frozenset()
        else:
            key = frozenset()
            q = pos - 1
            while q >= 0 and pos - q <= 8 and not (kind[q] == "p" and low[q] in (".", ";", "!", "?")):
                if kind[q] == "w" and (attr := _attribute(low[q])) is not None:
                    key = frozenset((attr,))
                    break
                q -= 1
            if not key:
                for q in range(pos + 1, min(n, pos + 4)):
                    if kind[q] == "w" and (attr := _attribute(low[q])) is not None:
                        key = frozenset((attr,))
                        break
        out.append(Quantity(dim, lo_q, hi_q, key, qtext))
    return tuple(out)


def _attribute(w: str, _cache: dict = {}) -> str | None:  # noqa: B006 - deliberate cache
    """The stem of an attribute noun ("pressures" -> "pressure"), else None."""
    if w in _cache:
        return _cache[w]
    r = stem(w) if w in L.ATTRIBUTE_NOUNS or stem(w) in L.ATTRIBUTE_NOUNS else None
    if len(_cache) > CACHE_LIMIT:
        _cache.clear()
    _cache[w] = r
    return r
