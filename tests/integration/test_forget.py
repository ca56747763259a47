"""Forgetting: a retraction is a signed commit that keeps history, and only of one's own memories."""

from __future__ import annotations

import pytest

from collective.agent import Agent
from collective.errors import BadInput, NotFound

# The storage behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def head(agent: Agent) -> str:
    return agent.log(1)[0].hash

def recalled_ids(agent: Agent, query: str, **kwargs) -> list[str]:
    return [h.memory.id for h in agent.recall(query, **kwargs)]


def test_forget_retracts_but_keeps_history(agent):
    keep = agent.store("the greenhouse lights run on a timer").memory.id
    gone = agent.store("the coolant pump is safe").memory.id
    before = head(agent)
    result = agent.forget(gone)
    assert result == {"id": gone, "retracted": True, "changed": True, "commit": head(agent)}
    assert head(agent) != before and agent.log(1)[0].message.startswith(f"retract {gone}")
    assert recalled_ids(agent, "coolant pump greenhouse", k=5) == [keep]
    assert gone in recalled_ids(agent, "coolant pump greenhouse", k=5, as_of=before)
    assert agent.get(gone).retracted is True and agent.repo.count("memories") == 2
    history = agent.repo.query("SELECT retracted FROM dolt_history_memories WHERE id = "
                               f"{agent.repo.param} ORDER BY commit_date", (gone,))
    assert sorted(r["retracted"] for r in history) == [0, 1]
    again_head = head(agent)
    assert agent.forget(gone) == {"id": gone, "retracted": True, "changed": False, "commit": None}
    assert head(agent) == again_head
    # storing the same words again makes a new memory: the retracted one is not reinforced
    fresh = agent.store("the coolant pump is safe")
    assert not fresh.deduplicated and fresh.memory.id != gone

def test_forget_refuses_another_agents_memory(agent, foreign):
    theirs = foreign(agent, "mars-1", "dust storm expected on sol 200")
    before = head(agent)
    with pytest.raises(BadInput) as e:
        agent.forget(theirs.id)
    assert e.value.field == "memory" and "mars-1" in e.value.problem
    assert head(agent) == before and agent.get(theirs.id).retracted is False
    with pytest.raises(NotFound):
        agent.forget("01a00000-0000-7000-8000-000000000000")
