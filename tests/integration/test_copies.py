"""Which rows stand on a memory's side (quarantine/verdicts.copies_of): walked a few queries a
step, or over the whole graph read at once, the answer is the same."""

from __future__ import annotations

import numpy as np
import pytest

from collective.agent import MemoryInput
from collective.model.enums import LinkType
from collective.quarantine import verdicts


def test_the_whole_graph_and_the_step_walk_find_the_same_sides(agent, monkeypatch):
    rng = np.random.default_rng(3)
    stored = agent.store_many([MemoryInput(f"reading {n} of sensor {n % 7}", vector=rng.normal(size=64))
                               for n in range(600)])
    ids = [r.memory.id for r in stored]
    tables = agent.tables
    with agent.repo.transaction():
        for n in range(0, 300, 3):  # chains: n+2 absorbed into n+1, n+1 into n
            tables.memories.set(ids[n + 1], absorbed_into=ids[n])
            tables.memories.set(ids[n + 2], absorbed_into=ids[n + 1])
        links = [{"source_id": ids[300 + n], "target_id": ids[301 + n], "link_type": LinkType.CONSENSUS.value,
                  "weight": 1.0, "created_by": "earth-1", "created_at": "2026-12-03T00:00:00Z"} for n in range(0, 290)]
        links += [{"source_id": ids[0], "target_id": ids[599], "link_type": LinkType.PARTIAL_AGREEMENT.value,
                   "weight": 0.5, "created_by": "earth-1", "created_at": "2026-12-03T00:00:00Z"}]
        tables.links.write(links)
    asked = ids[::5] + ["not-held"]
    monkeypatch.setattr(verdicts, "WHOLE_GRAPH_FROM", 10 ** 9)
    by_steps = verdicts.copies_of(tables, asked, holder=agent.agent_id)
    monkeypatch.setattr(verdicts, "WHOLE_GRAPH_FROM", 1)
    whole = verdicts.copies_of(tables, asked, holder=agent.agent_id)
    assert whole == by_steps
    assert by_steps[ids[0]] == {ids[0], ids[1], ids[2]} and by_steps[ids[595]] == {ids[595]}
    assert len(by_steps[ids[300]]) == 291  # asked from every fifth of it, the chain is walked whole
    monkeypatch.setattr(verdicts, "WHOLE_GRAPH_FROM", 10 ** 9)
    one_end = verdicts.copies_of(tables, [ids[300]], holder=agent.agent_id)
    monkeypatch.setattr(verdicts, "WHOLE_GRAPH_FROM", 1)
    assert verdicts.copies_of(tables, [ids[300]], holder=agent.agent_id) == one_end
    assert verdicts.MAX_COPIES <= len(one_end[ids[300]]) < 291  # from one end, the walk stops at the cap
    assert by_steps["not-held"] == {"not-held"}


@pytest.mark.parametrize("many", [False, True])
def test_a_memory_with_no_copies_is_its_own_side(agent, monkeypatch, many):
    monkeypatch.setattr(verdicts, "WHOLE_GRAPH_FROM", 1 if many else 10 ** 9)
    memory = agent.store("alone here", vector=np.ones(64)).memory
    assert verdicts.copies_of(agent.tables, [memory.id], holder=agent.agent_id) == {memory.id: {memory.id}}


@pytest.mark.parametrize("many", [False, True])
def test_a_consensus_link_another_agent_made_joins_no_sides(agent, monkeypatch, many):
    # a peer's dream brings the links it made: its word alone puts no memory on another's side
    monkeypatch.setattr(verdicts, "WHOLE_GRAPH_FROM", 1 if many else 10 ** 9)
    pump, oxygen, again = (agent.store(text, vector=np.eye(64)[n]).memory.id for n, text in
                           enumerate(["the pump is not safe", "the oxygen is low", "the pump is unsafe"]))
    link = {"link_type": LinkType.CONSENSUS.value, "weight": 1.0, "created_at": "2026-12-03T00:00:00Z"}
    with agent.repo.transaction():
        agent.tables.links.write([{**link, "source_id": pump, "target_id": oxygen, "created_by": "earth-2"},
                                  {**link, "source_id": again, "target_id": pump, "created_by": agent.agent_id}])
    assert verdicts.copies_of(agent.tables, [pump], holder=agent.agent_id) == {pump: {pump, again}}
