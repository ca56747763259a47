"""Fading is for age and weak importance (docs/concepts/recall.md): recall leaves out a memory
whose amplitude x recency is under the fade threshold, and nothing else. Trust in its origin
and the penalties of an open dispute lower its rank; they never hide it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from collective.agent import Agent
from collective.model import iso, utcnow

AIRLOCK = "The west airlock seal was replaced on sol 40"


def head(agent: Agent) -> str:
    return agent.log(1)[0].hash


def distrust(agent: Agent, peer: str, score: float) -> None:
    """The receiver's trust in `peer`, as many verdicts against it would leave it."""
    with agent.repo.transaction():
        agent.tables.agents.write({"agent_id": peer, "public_key": "key", "trust_score": score,
                                   "branch_name": f"{peer}/working", "created_at": iso(utcnow())})
        agent.repo.commit(f"trust {peer}", author=agent.agent_id)


def set_memory(agent: Agent, memory_id: str, **values) -> None:
    with agent.repo.transaction():
        agent.tables.memories.set(memory_id, **values)
        agent.repo.commit("memory changed", author=agent.agent_id)


def found(agent: Agent, text: str, memory_id: str, **kwargs) -> bool:
    return memory_id in {h.memory.id for h in agent.recall(text, k=3, **kwargs)}


def test_a_memory_of_a_distrusted_peer_ranks_lower_and_is_still_found(agent, foreign):
    agent.store("The greenhouse lights run on a timer")
    memory = foreign(agent, "mars-1", AIRLOCK, amplitude=0.3)
    distrust(agent, "mars-1", 0.1)  # its strength: 0.3 x 0.1 = 0.03, under the fade threshold of 0.05
    (hit,) = [h for h in agent.recall(AIRLOCK, k=3) if h.memory.id == memory.id]
    assert hit.strength == pytest.approx(0.03, rel=1e-4) and hit.strength < agent.settings.fade_threshold
    assert found(agent, AIRLOCK, memory.id, as_of=head(agent))  # the brute-force path agrees
    # the field stability counts it too: trust is no reason to call it faded
    assert agent.stability()["stability"] > 0.0


def test_an_open_dispute_does_not_fade_a_memory_its_penalties_weakened(agent):
    memory = agent.store(AIRLOCK).memory
    set_memory(agent, memory.id, amplitude=0.01, disputed=1)  # as many disputes' penalties leave it
    assert found(agent, AIRLOCK, memory.id) and found(agent, AIRLOCK, memory.id, as_of=head(agent))
    (hit,) = agent.recall(AIRLOCK, k=1)
    assert hit.to_dict()["disputed"] and "; disputed" in hit.why()
    # the flag cleared with the amplitude still weak (a verdict gives back only what it took
    # here): weak importance fades it, in the index and in history alike
    set_memory(agent, memory.id, disputed=0)
    assert not found(agent, AIRLOCK, memory.id) and not found(agent, AIRLOCK, memory.id, as_of=head(agent))
    assert found(agent, AIRLOCK, memory.id, include_faded=True)


def test_age_still_fades_a_memory(agent):
    memory = agent.store(AIRLOCK, importance=0.2).memory
    later = utcnow() + timedelta(days=150)  # knowledge halves every 30 days: 0.2 x 2^-5 < 0.05
    assert found(agent, AIRLOCK, memory.id)
    assert not found(agent, AIRLOCK, memory.id, now=later)
    assert found(agent, AIRLOCK, memory.id, now=later, include_faded=True)
    assert agent.stability(now=later) == {"stability": 0.0, "memories": 1}  # a faded memory counts as 0
