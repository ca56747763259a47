"""Stance -> phase (collective.core.phase, with the default estimator
collective.judge.stance.estimate): negation is pi away, a paraphrase keeps
its phase, a hedge is uncertain, and explicit input beats the wording."""

from __future__ import annotations

import math

import pytest

from collective.core import phase, wave
from collective.errors import BadInput
from collective.judge.stance import estimate

TAU = 2 * math.pi


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
