"""States on antonym axes ("open"/"closed", "running"/"shut down"), with
negation: "not open" is closed, "unsealed" is the other pole of "sealed"."""

from __future__ import annotations

from .. import lexicon as L
from ..text import CACHE_LIMIT, STATE_INDEX
from .scan import Scan


def read_states(s: Scan) -> None:
    """The poles the claim puts each axis at; a state in the subject ("the broken antenna")
    counts only when the predicate says nothing of that axis."""
    low, orig, kind, n, verb_at, negcount = s.low, s.orig, s.kind, s.n, s.verb_at, s.negcount
    axes: dict[str, set] = {}
    subj_axes: dict[str, set] = {}
    axis_words: dict[str, str] = {}

    def add_axis(axis: str, pole: int, i: int) -> None:
        if negcount[i] % 2:
            pole = -pole
        target = subj_axes if i < verb_at else axes
        target.setdefault(axis, set()).add(pole)
        axis_words.setdefault(axis, orig[i])
        for (ax2, p2) in L.STATE_IMPLIES.get((axis, pole), ()):
            target.setdefault(ax2, set()).add(p2)

    # only state words, particles and prefixed words ("unsealed") can be states
    for i in [i for i in range(s.start, s.main_end) if kind[i] == "w" and (
              low[i] in STATE_INDEX or low[i] in L.PARTICLE_STATES or low[i].startswith(L.NEGATING_PREFIXES))]:
        w = low[i]
        if w in L.PARTICLE_STATES and i > 0 and low[i - 1] in L.COPULAS:
            nxt = low[i + 1] if i + 1 < n else "."
            if nxt in L.CLAUSE_PUNCTUATION or nxt in L.PARTICLE_FOLLOWERS:  # "the relay is down."
                add_axis(*L.PARTICLE_STATES[w], i)
                continue
        st = STATE_INDEX.get(w) or _prefixed_state(w)
        if st is None:
            continue
        blocker = L.STATE_BLOCKERS.get(w)
        if blocker and i + 1 < n and low[i + 1] == blocker:
            continue
        if w in ("clear", "cleared") and i + 1 < n and kind[i + 1] == "w" and orig[i + 1][:1].isupper():
            continue  # "cleared Chen": a permission, not an unobstructed place
        add_axis(st[0], st[1], i)
    for axis, poles in subj_axes.items():
        axes.setdefault(axis, poles)  # "the broken antenna": only if the predicate is silent
    s.axes, s.axis_words = axes, axis_words


def _prefixed_state(w: str, _cache: dict = {}) -> tuple[str, int] | None:  # noqa: B006 - deliberate cache
    """A state word behind a negating prefix, at the other pole: "abnormal", "unsealed"."""
    if w in _cache:
        return _cache[w]
    r = None
    if len(w) > 5 and w not in L.STOPWORDS:
        for pre in L.NEGATING_PREFIXES:
            if w.startswith(pre):
                base = STATE_INDEX.get(w[len(pre):])
                if base is not None:
                    r = (base[0], -base[1])
                    break
    if len(_cache) > CACHE_LIMIT:
        _cache.clear()
    _cache[w] = r
    return r
