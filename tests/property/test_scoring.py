"""Strengths read from memory rows (collective.core.scoring): each is amplitude * trust *
recency, what fading weighs is amplitude * recency (never trust, never while disputed), and
the stability over them is 0 for none and lies between the weakest and the strongest otherwise."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collective.core import scoring, trust
from collective.model import CATEGORIES, iso, parse_time

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)

rows = st.lists(st.fixed_dictionaries({
    "amplitude": st.floats(0.01, 1.0),
    "origin_agent": st.sampled_from(["earth-1", "earth-2", "mars-1"]),
    "created_at": st.integers(0, 400 * 86400).map(lambda s: iso(NOW - timedelta(seconds=s))),
    "category": st.sampled_from(CATEGORIES),
    "disputed": st.sampled_from([0, 1]),
}), max_size=30)
trusts = st.fixed_dictionaries({"earth-1": st.floats(trust.FLOOR, trust.CEILING),
                                "mars-1": st.floats(trust.FLOOR, trust.CEILING)})  # earth-2 unknown: START


@given(rows, trusts)
def test_row_strengths_are_amplitude_trust_and_recency(memories, scores):
    strength = scoring.row_strengths(memories, scores, NOW.timestamp(), trust.DEFAULT_HALF_LIVES_DAYS)
    assert strength.shape == (len(memories),)
    for row, s in zip(memories, strength):
        recency = trust.recency(parse_time(row["created_at"]), NOW, row["category"])
        assert s == pytest.approx(row["amplitude"] * scores.get(row["origin_agent"], trust.START) * recency,
                                  rel=1e-6)  # amplitudes are kept as float32


@given(rows, trusts)
def test_field_stability_weighs_mean_strength_and_spread(memories, scores):
    strength = scoring.row_strengths(memories, scores, NOW.timestamp(), trust.DEFAULT_HALF_LIVES_DAYS)
    stability = scoring.field_stability(strength)
    if not memories or strength.mean() <= 0:
        assert stability == 0.0
    else:
        assert 0.0 <= stability <= 0.6 * strength.max() + 0.4 + 1e-9
        spread = max(0.0, 1 - float(strength.std()) / float(strength.mean()))
        assert stability == pytest.approx(0.6 * float(strength.mean()) + 0.4 * spread)


@given(rows, trusts)
def test_fading_weighs_amplitude_and_recency_never_trust_nor_an_open_dispute(memories, scores):
    fading = scoring.row_fading(memories, NOW.timestamp(), trust.DEFAULT_HALF_LIVES_DAYS)
    strength = scoring.row_strengths(memories, scores, NOW.timestamp(), trust.DEFAULT_HALF_LIVES_DAYS)
    for row, f, s in zip(memories, fading, strength):
        recency = trust.recency(parse_time(row["created_at"]), NOW, row["category"])
        if row["disputed"]:
            assert f == float("inf")  # its dispute penalty ranks it, a verdict settles it
        else:
            assert f == pytest.approx(row["amplitude"] * recency, rel=1e-6)
            assert s <= f * (1 + 1e-6)  # trust at most 1: a memory fades no sooner than its strength says
    faded = fading < 0.05
    assert scoring.field_stability(strength, faded=faded) == scoring.field_stability(strength * ~faded)
