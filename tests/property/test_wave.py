"""Wave math (collective.core.wave): phase difference, classification, superposition,
circular mean, blend, dispute penalty and order. Pure, so checked as properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from collective.core import wave

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


@given(amps, angles, amps, angles)
def test_superposition_is_symmetric_in_the_two_memories(a1, phi1, a2, phi2):
    one, other = wave.superpose(a1, phi1, a2, phi2), wave.superpose(a2, phi2, a1, phi1)
    assert one[0] == pytest.approx(other[0], abs=1e-12)
    if one[0] > 1e-6:
        assert angle_gap(one[1], other[1]) < 1e-9


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
