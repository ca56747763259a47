"""The resonance-field seed's formulas, on hand-computed cases."""

import math

import numpy as np
import pytest

from collective.core import scoring
from collective.dream.partition import clusters
from collective.dream.stages import synchronise


def test_a_coaccess_bonus_per_recall_of_k_memories():
    assert scoring.coaccess_bonus(1) == 1.0
    assert scoring.coaccess_bonus(3) == pytest.approx(1.04)
    assert scoring.coaccess_bonus(11) == pytest.approx(1.2)


def test_folding_multiplies_the_bonuses_up_to_the_cap_and_the_ceiling():
    # two recalls of 3 together: 0.5 * 1.04 * 1.04 = 0.5408; 30 recalls of 11: 0.5 * 1.2^30, capped at 0.5 * 1.5
    folded = scoring.fold_coaccess(np.array([0.5, 0.5, 1.8]), np.array([1.04 ** 2, 1.2 ** 30, 1.2]), cap=1.5,
                                   ceiling=2.0)
    assert folded.tolist() == pytest.approx([0.5408, 0.75, 2.0])


def test_field_stability_of_a_hand_computed_case():
    # mean 2/3, population stddev sqrt(2)/6: 0.6 * 2/3 + 0.4 * (1 - (sqrt(2)/6) / (2/3))
    expected = 0.6 * (2 / 3) + 0.4 * (1 - math.sqrt(2) / 4)
    assert scoring.field_stability(np.array([0.5, 0.5, 1.0])) == pytest.approx(expected)
    assert scoring.field_stability(np.array([0.5, 0.5, 0.5])) == pytest.approx(0.6 * 0.5 + 0.4)


def test_an_empty_or_fully_faded_memory_has_no_stability():
    assert scoring.field_stability(np.array([])) == 0.0
    assert scoring.field_stability(np.array([0.01, 0.02]), faded=np.array([True, True])) == 0.0
    # a spread wider than the mean gives no evenness term
    assert scoring.field_stability(np.array([0.0, 0.0, 0.0, 3.0])) == pytest.approx(0.6 * 0.75)


def test_kuramoto_pulls_coupled_phases_together_across_the_seam():
    phases = np.array([0.2, 2 * math.pi - 0.2, 3.0])
    after = synchronise.synchronise(phases, np.array([[0, 1]]), np.array([1.0]), coupling=1.0, steps=20, dt=0.1)
    assert all(0 <= p < 2 * math.pi for p in after)
    gap = abs(math.remainder(after[0] - after[1], 2 * math.pi))
    assert gap < 0.4 * 0.5  # the pair moved toward each other over 0, not the long way round
    assert after[2] == 3.0  # uncoupled: untouched
    assert synchronise.order(after[:2]) > synchronise.order(phases[:2])


def test_clusters_are_bounded_and_split_a_giant_component_at_its_weakest_edges():
    chain = [(i, i + 1, 0.9) for i in range(9)] + [(4, 5, 0.1)]
    groups = clusters(10, [e for e in chain if e[:2] != (4, 5)] + [(4, 5, 0.1)], max_size=5)
    assert groups == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert clusters(3, [], max_size=5) == [[0], [1], [2]]
