"""Status: what an agent holds, counted, with its branch, head and schema."""

from __future__ import annotations

import numpy as np
import pytest

from collective.agent import Agent
from collective.store.sql import migrations

# The storage behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def head(agent: Agent) -> str:
    return agent.log(1)[0].hash


def test_status_counts(agent, foreign):
    a = agent.store("one").memory.id
    agent.store("two")
    agent.forget(a)
    foreign(agent, "mars-1", "three")
    s = agent.status()
    assert s["counts"] == {"memories": 3, "own": 2, "retracted": 1, "disputed": 0, "absorbed": 0,
                           "peers": 0, "open_cases": 0, "awaiting_reviewer": 0, "key_changes": 0}
    assert s["branch"] == "earth-1/working" and s["head"] == head(agent) and s["schema_version"] == migrations(agent.repo.dialect)[-1][0]


def test_stability_is_the_field_stability_of_what_recall_sees(agent, foreign):
    assert agent.stability() == {"stability": 0.0, "memories": 0}
    strong = agent.store("the coolant pump is safe", importance=0.9).memory.id
    agent.store("the airlock seal leaks", importance=0.3)
    foreign(agent, "mars-1", "dust storms peak in summer", amplitude=0.6)
    texts = ("the coolant pump is safe", "the airlock seal leaks", "dust storms peak in summer")
    hits = [agent.recall(text, k=1, include_faded=True)[0] for text in texts]  # each above the floor
    assert len({h.memory.id for h in hits}) == 3
    measured = agent.stability()
    assert measured["memories"] == 3
    strengths = np.array([h.strength for h in hits])
    expected = 0.6 * strengths.mean() + 0.4 * max(0.0, 1 - strengths.std() / strengths.mean())
    assert measured["stability"] == pytest.approx(expected, abs=1e-5)
    assert agent.status()["stability"] == measured["stability"]
    agent.forget(strong)
    assert agent.stability()["memories"] == 2
