"""Properties of the pure modules: wave math, trust rules, phase estimation, model basics."""

from __future__ import annotations

import math
import string
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from collective.core import phase, trust, wave
from collective.judge.stance import estimate
from collective.errors import BadInput
from collective.model import (Memory, blob_to_vector, content_hash, summarise, uuid7, validate_amplitude,
                              validate_phase, validate_vector, vector_to_blob)

TAU = 2 * math.pi
angles = st.floats(-7.0, 7.0, allow_nan=False)
amps = st.floats(0.01, 1.0, allow_nan=False)


def angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % TAU
    return min(d, TAU - d)


# --- phase difference and classification ------------------------------------
@given(angles, angles)
def test_phase_difference_folded_and_symmetric(a, b):
    d = wave.phase_difference(a, b)
    assert 0 <= d <= math.pi
    assert d == pytest.approx(wave.phase_difference(b, a), abs=1e-12)


@given(angles, angles, st.integers(-3, 3))
def test_phase_difference_ignores_whole_turns(a, b, turns):
    assert wave.phase_difference(a + turns * TAU, b) == pytest.approx(wave.phase_difference(a, b), abs=1e-9)


def test_phase_difference_known_values():
    assert wave.phase_difference(0.0, math.pi) == pytest.approx(math.pi)
    assert wave.phase_difference(0.1, TAU - 0.1) == pytest.approx(0.2)  # across the seam
    assert wave.phase_difference(1.0, 1.0) == 0.0
    assert wave.phase_difference(0.0, 3 * math.pi / 2) == pytest.approx(math.pi / 2)


@given(st.floats(-1, 1), st.floats(0, math.pi))
def test_classify_partitions_the_plane(similarity, dphi):
    relation = wave.classify(similarity, dphi)
    if similarity < wave.SIMILARITY_THRESHOLD:
        assert relation == wave.INDEPENDENT
    elif dphi < math.pi / 4:
        assert relation == wave.CONSTRUCTIVE
    elif dphi > 3 * math.pi / 4:
        assert relation == wave.DESTRUCTIVE
    else:
        assert relation == wave.PARTIAL


def test_classify_boundaries():
    assert wave.classify(0.59, 0.0) == wave.INDEPENDENT
    assert wave.classify(0.6, 0.0) == wave.CONSTRUCTIVE
    assert wave.classify(0.9, math.pi / 4) == wave.PARTIAL
    assert wave.classify(0.9, 3 * math.pi / 4) == wave.PARTIAL
    assert wave.classify(0.9, math.pi) == wave.DESTRUCTIVE


# --- superposition ------------------------------------------------------------
@given(amps, amps, angles)
def test_superpose_in_phase_adds_up_to_the_cap(a1, a2, phi):
    amplitude, merged = wave.superpose(a1, phi, a2, phi)
    assert amplitude == pytest.approx(min(a1 + a2, wave.AMPLITUDE_CAP), rel=1e-9)
    assert angle_gap(merged, phi) < 1e-9


@given(amps, amps, angles)
def test_superpose_in_antiphase_cancels(a1, a2, phi):
    amplitude, merged = wave.superpose(a1, phi, a2, phi + math.pi)
    assert amplitude == pytest.approx(abs(a1 - a2), abs=1e-7)
    if abs(a1 - a2) > 1e-6:  # the stronger wave keeps its phase
        assert angle_gap(merged, phi if a1 > a2 else phi + math.pi) < 1e-6


@given(amps, amps, angles, angles)
def test_superpose_bounded(a1, a2, phi1, phi2):
    amplitude, merged = wave.superpose(a1, phi1, a2, phi2, cap=1.2)
    assert abs(a1 - a2) - 1e-9 <= amplitude <= min(a1 + a2, 1.2) + 1e-9
    assert 0.0 <= merged < TAU


def test_superpose_cap_applies():
    assert wave.superpose(1.5, 0.0, 1.5, 0.0) == (2.0, 0.0)
    assert wave.superpose(1.5, 0.0, 1.5, 0.0, cap=5.0)[0] == pytest.approx(3.0)


# --- circular mean --------------------------------------------------------------
@given(st.floats(0.0, 1.0))
def test_circular_mean_across_the_seam(eps):
    mean = wave.circular_mean([eps, TAU - eps])
    assert angle_gap(mean, 0.0) < 1e-9
    assert 0.0 <= mean < TAU


@given(st.lists(angles, min_size=1, max_size=6), angles)
def test_circular_mean_rotates_with_its_inputs(phases, shift):
    s = sum(math.sin(p) for p in phases)
    c = sum(math.cos(p) for p in phases)
    assume(math.hypot(s, c) > 1e-3)  # the mean of opposed phases is undefined
    mean = wave.circular_mean(phases)
    rotated = wave.circular_mean([p + shift for p in phases])
    assert angle_gap(rotated, mean + shift) < 1e-6


def test_circular_mean_weights_pull_towards_the_heavier():
    assert wave.circular_mean([0.0, math.pi / 2], [3.0, 1.0]) == pytest.approx(math.atan2(1, 3))
    assert wave.circular_mean([1.0, 1.0 + math.pi]) == pytest.approx(1.0)  # undefined: falls back to the first
    assert wave.circular_mean([]) == 0.0


# --- blend, penalty, order --------------------------------------------------------
@given(st.integers(0, 10_000), amps, amps)
def test_blend_is_unit_length_and_between(seed, a1, a2):
    rng = np.random.default_rng(seed)
    v1, v2 = (v / np.linalg.norm(v) for v in rng.normal(size=(2, 16)))
    b = wave.blend(v1, a1, v2, a2)
    assert np.linalg.norm(b) == pytest.approx(1.0, abs=1e-5)
    assert wave.cosine(b, v1) >= wave.cosine(v1, v2) - 1e-5
    assert wave.cosine(b, v2) >= wave.cosine(v1, v2) - 1e-5


def test_blend_of_opposites_keeps_the_first():
    v = np.array([1.0, 0.0], dtype=np.float32)
    assert np.array_equal(wave.blend(v, 1.0, -v, 1.0), v)


@given(amps, st.floats(0, 1))
def test_dispute_penalty(amplitude, similarity):
    after = wave.dispute_penalty(amplitude, similarity)
    assert after == pytest.approx(amplitude * (1 - 0.4 * similarity))
    assert 0.6 * amplitude - 1e-12 <= after <= amplitude


@given(st.lists(angles, min_size=1, max_size=8))
def test_kuramoto_order_bounded(phases):
    r = wave.kuramoto_order(phases)
    assert -1e-12 <= r <= 1 + 1e-12
    assert wave.kuramoto_order([phases[0]] * 4) == pytest.approx(1.0)


def test_kuramoto_order_known_values():
    assert wave.kuramoto_order([0.0, math.pi]) == pytest.approx(0.0, abs=1e-12)
    assert wave.kuramoto_order([]) == 0.0


def test_cosine_of_zero_vector_is_zero():
    assert wave.cosine(np.zeros(3), np.ones(3)) == 0.0
    assert wave.cosine(np.array([1.0, 0.0]), np.array([0.0, 2.0])) == 0.0


# --- trust -------------------------------------------------------------------------
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
    assert change.delta == pytest.approx(change.score_after - score)
    assert (change.delta >= 0) == (trust.DELTAS[reason] >= 0) or change.delta == 0


def test_trust_cannot_be_raised_by_oneself_nor_by_unknown_reasons():
    with pytest.raises(trust.SelfTrust):
        trust.change("earth-1", 0.5, "corroborated", holder="earth-1")
    with pytest.raises(ValueError):
        trust.change("mars-1", 0.5, "likes-me", holder="earth-1")
    assert trust.change("mars-1", 0.95, "verdict_for", holder="earth-1").score_after == 1.0
    assert trust.change("mars-1", 0.12, "verdict_against", holder="earth-1").score_after == 0.1


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


# --- phase estimator -----------------------------------------------------------------
def test_negation_puts_statements_pi_apart():
    safe = estimate("the coolant pump is safe")
    unsafe = estimate("the coolant pump is not safe")
    assert safe == phase.AFFIRM and unsafe == phase.DENY
    assert wave.phase_difference(safe, unsafe) == pytest.approx(math.pi)


@pytest.mark.parametrize("paraphrase", ["the coolant pump poses no danger", "the coolant pump is safe to operate",
                                        "the coolant pump isn't dangerous"])
def test_paraphrase_keeps_the_phase(paraphrase):
    d = wave.phase_difference(estimate("the coolant pump is safe"), estimate(paraphrase))
    assert d < wave.CONSTRUCTIVE_MAX


def test_hedges_are_uncertain_and_explicit_input_wins():
    assert estimate("the coolant pump might be safe") == phase.UNCERTAIN
    assert phase.resolve("the coolant pump is safe", estimator=estimate, stance="deny") == (math.pi, "deny")
    assert phase.resolve("the coolant pump is safe", estimator=estimate, phase=TAU + 1.0) == (pytest.approx(1.0), "explicit")
    assert phase.resolve("the coolant pump is not safe", estimator=estimate) == (math.pi, None)
    with pytest.raises(BadInput) as e:
        phase.resolve("x", estimator=estimate, phase=1.0, stance="deny")
    assert e.value.field == "phase"


# --- model basics ----------------------------------------------------------------------
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_validate_phase(value):
    if math.isfinite(value):
        out = validate_phase(value)
        assert 0.0 <= out < TAU
        assert angle_gap(out, value) < 1e-6 * max(1.0, abs(value))
    else:
        with pytest.raises(BadInput) as e:
            validate_phase(value)
        assert e.value.field == "phase"


@pytest.mark.parametrize("bad", [0, 0.0, 1.5, -1, "abc", None, float("nan"), float("inf")])
def test_validate_amplitude_rejects(bad):
    with pytest.raises(BadInput) as e:
        validate_amplitude(bad)
    assert e.value.field == "importance"


def test_validate_amplitude_accepts():
    assert validate_amplitude("1") == 1.0 and validate_amplitude(1e-6) == 1e-6


@pytest.mark.parametrize("bad", [np.ones(3), np.zeros(4), [1.0, float("nan"), 0, 0], [float("inf"), 0, 0, 0], "abcd"])
def test_validate_vector_rejects(bad):
    with pytest.raises(BadInput) as e:
        validate_vector(bad, 4)
    assert e.value.field == "vector"


@given(st.lists(st.floats(-100, 100), min_size=8, max_size=8))
def test_vector_blob_round_trip_is_unit(values):
    assume(np.linalg.norm(np.asarray(values, dtype=np.float32)) > 1e-3)
    v = validate_vector(values, 8)
    assert np.linalg.norm(v) == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(blob_to_vector(vector_to_blob(v)), v)
    assert len(vector_to_blob(v)) == 32


def test_uuid7_is_time_ordered_and_versioned():
    ids = [uuid7() for _ in range(500)]
    assert ids == sorted(ids) and len(set(ids)) == 500
    assert all(i[14] == "7" and i[19] in "89ab" for i in ids)


@given(st.text(alphabet=string.ascii_letters + " \t\n", min_size=1, max_size=80))
def test_content_hash_folds_case_and_whitespace(text):
    respaced = "  " + "\n\t ".join(text.swapcase().split()) + " "
    assert content_hash(text) == content_hash(respaced)


def test_content_hash_keeps_words_apart():
    assert content_hash("the pump is safe") != content_hash("the pump is not safe")
    assert content_hash("a b") != content_hash("ab")


@given(st.text(min_size=1, max_size=600))
def test_summary_is_short(text):
    assert len(summarise(text)) <= 160


def test_memory_row_round_trip():
    v = validate_vector(np.arange(1, 5), 4)
    m = Memory(id=uuid7(), content="c", summary="c", vector=v, dim=4, model_version="m", content_hash="h",
               amplitude=0.5, phase=1.0, category="skill", origin_agent="earth-1", created_at="t", updated_at="t",
               tags=["a", "b"], parents=["p"], merge_history=[{"type": "x"}], disputed=True)
    row = m.to_row()
    assert isinstance(row["vector"], bytes) and row["tags"] == '["a", "b"]' and row["disputed"] == 1
    back = Memory.from_row(row)
    assert back.tags == ["a", "b"] and back.parents == ["p"] and back.disputed is True
    assert np.array_equal(back.vector, v) and back.claim() == m.claim()
