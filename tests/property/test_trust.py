"""Trust rules and recency (collective.core.trust): a score moves only by its reasons,
stays within [FLOOR, CEILING], is never raised by its holder, and fades by half-lives."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collective.core import trust

scores = st.floats(trust.FLOOR, trust.CEILING, allow_nan=False)


@given(st.floats(-10, 10, allow_nan=False))
def test_trust_clamp(score):
    clamped = trust.clamp(score)
    assert trust.FLOOR <= clamped <= trust.CEILING
    if trust.FLOOR <= score <= trust.CEILING:
        assert clamped == score


@given(st.floats(0.1, 1.0), st.sampled_from(sorted(trust.DELTAS)), st.floats(0, 5))
def test_trust_change_stays_in_bounds(score, reason, weight):
    change = trust.change("mars-1", score, reason, holder="earth-1", weight=weight)
    assert trust.FLOOR <= change.score_after <= trust.CEILING
    # the reason's delta, weighted, then clamped: nothing else moves a score
    assert change.score_after == pytest.approx(trust.clamp(score + trust.DELTAS[reason] * weight))
    assert change.delta == pytest.approx(change.score_after - score)
    assert (change.delta >= 0) == (trust.DELTAS[reason] >= 0) or change.delta == 0
    assert (change.agent_id, change.reason) == ("mars-1", reason)


@given(st.lists(st.sampled_from(sorted(trust.DELTAS)), max_size=40), scores)
def test_trust_chain_stays_clamped_and_never_self_raised(reasons, start):
    score = start
    for reason in reasons:
        change = trust.change("mars-1", score, reason, holder="earth-1")
        assert trust.FLOOR <= change.score_after <= trust.CEILING
        assert change.score_after == pytest.approx(trust.clamp(score + trust.DELTAS[reason]))
        assert change.score_after == pytest.approx(score + change.delta)
        with pytest.raises(trust.SelfTrust):
            trust.change("earth-1", score, reason, holder="earth-1")
        score = change.score_after


@given(st.sampled_from(sorted(trust.DELTAS)), st.integers(0, 10_000), scores)
def test_many_moves_folded_into_one_stay_within_the_reasons_bound(reason, count, score):
    weight = trust.folded_weight(reason, count)
    moved = trust.change("mars-1", score, reason, holder="earth-1", weight=weight)
    bound = trust.BOUND_PER_PULL.get(reason)
    if bound is None:  # unbounded reasons count every move
        assert weight == count
    else:
        assert abs(moved.delta) <= bound + 1e-12
        assert weight == min(count, bound / abs(trust.DELTAS[reason]))  # each counts, up to the bound
    assert trust.FLOOR <= moved.score_after <= trust.CEILING


def test_quarantine_and_prune_are_bounded_per_pull_and_verdicts_are_not():
    assert set(trust.BOUND_PER_PULL) == {"quarantined", "pruned"}
    # an honest peer keeps most of its trust through any pull that verdicts did not judge
    assert trust.START - trust.BOUND_PER_PULL["quarantined"] >= 0.45
    assert trust.change("mars-1", 0.5, "quarantined", holder="earth-1",
                        weight=trust.folded_weight("quarantined", 188)).score_after == pytest.approx(0.48)


def test_trust_cannot_be_raised_by_oneself_nor_by_unknown_reasons():
    with pytest.raises(trust.SelfTrust):
        trust.change("earth-1", 0.5, "corroborated", holder="earth-1")
    with pytest.raises(ValueError):
        trust.change("mars-1", 0.5, "likes-me", holder="earth-1")
    assert trust.change("mars-1", 0.95, "verdict_for", holder="earth-1").score_after == 1.0
    assert trust.change("mars-1", 0.12, "verdict_against", holder="earth-1").score_after == 0.1


# --- recency -------------------------------------------------------------------------
def test_recency_halves_every_half_life_after_a_day():
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert trust.recency(t0, t0 + timedelta(hours=23), "experience") == 1.0
    assert trust.recency(t0, t0 + timedelta(days=8), "experience") == pytest.approx(0.5)
    assert trust.recency(t0, t0 + timedelta(days=31), "knowledge") == pytest.approx(0.5)
    assert trust.recency(t0, t0 + timedelta(days=3), "knowledge", {"knowledge": 2.0}) == pytest.approx(0.5)


@given(st.floats(0, 400), st.floats(0, 400), st.sampled_from(sorted(trust.DEFAULT_HALF_LIVES_DAYS)))
def test_recency_is_monotone(d1, d2, category):
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    r1 = trust.recency(t0, t0 + timedelta(days=d1), category)
    r2 = trust.recency(t0, t0 + timedelta(days=d2), category)
    assert 0 < r1 <= 1 and 0 < r2 <= 1
    if d1 <= d2:
        assert r1 >= r2
