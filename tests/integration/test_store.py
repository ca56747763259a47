"""Storing: one signed commit per store (or per batch), dedup by reinforcement, stances as phases,
and bad input refused before anything is written."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from collective.agent import Agent, MemoryInput
from collective.core import wave
from collective.errors import BadInput
from collective.identity import FORK_SIGNING_FROM, verify

# The storage behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def head(agent: Agent) -> str:
    return agent.log(1)[0].hash

def commit_count(agent: Agent) -> int:
    return len(agent.log(None))


def test_store_is_a_commit_authored_by_the_agent(agent):
    before = head(agent)
    result = agent.store("the coolant pump is safe", tags=["pump"], category="experience")
    after = head(agent)
    assert after != before and result.commit == after
    last = agent.repo.log(agent.branch, limit=1)[0]
    assert (last.author, last.email, last.message) == (
        "earth-1", "earth-1@cmem.local", f"store {result.memory.id}: the coolant pump is safe")
    stored = agent.repo.select("memories", {"id": result.memory.id}, as_of=after)[0]
    assert stored["content"] == "the coolant pump is safe" and stored["category"] == "experience"
    assert agent.repo.count("memories", as_of=before) == 0
    assert agent.repo.query("SELECT * FROM dolt_status") == []

def test_stored_memory_is_signed_by_the_agent(agent):
    memory = agent.get(agent.store("signed fact").memory.id)
    assert verify(agent.identity.public_key, memory.claim(), memory.signature)
    memory.tags = ["tampered"]
    assert not verify(agent.identity.public_key, memory.claim(), memory.signature)

def test_dedup_reinforces_the_existing_memory(agent):
    first = agent.store("The coolant pump is safe")
    second = agent.store("  the COOLANT pump   is safe ")
    third = agent.store("the coolant pump is safe", importance=1.0)
    assert second.deduplicated and third.deduplicated and not first.deduplicated
    assert first.memory.id == second.memory.id == third.memory.id
    assert first.memory.amplitude == 0.5
    assert second.memory.amplitude == pytest.approx(1.0)
    assert third.memory.amplitude == pytest.approx(2.0)  # 1.0 + 1.0, at the cap
    assert agent.repo.count("memories") == 1
    stored = agent.get(first.memory.id)
    assert stored.amplitude == pytest.approx(2.0) and stored.sync_version == 3
    assert stored.content == "The coolant pump is safe"  # the original wording stays
    messages = [c.message for c in agent.log(3)]
    assert messages[0].startswith(f"reinforce {first.memory.id}") and messages[2].startswith("store ")

def test_opposite_stance_is_not_a_duplicate(agent):
    first = agent.store("the coolant pump is safe")
    denied = agent.store("the coolant pump is safe", stance="deny")
    assert not denied.deduplicated and denied.memory.id != first.memory.id
    assert denied.memory.phase == pytest.approx(math.pi) and denied.memory.stance == "deny"
    assert agent.repo.count("memories") == 2

@pytest.mark.parametrize("count", [1, FORK_SIGNING_FROM], ids=["small", "large"])
def test_a_batch_signs_texts_it_holds_or_repeats_at_another_phase(agent, count):
    held = agent.store("the coolant pump is safe").memory
    filler = [MemoryInput(f"reading {n} of deck 7") for n in range(count)]
    results = agent.store_many([*filler, MemoryInput("the coolant pump is safe", stance="deny"),
                                MemoryInput("the hatch is open"), MemoryInput("the hatch is open", stance="deny"),
                                MemoryInput("the hatch is open", stance="deny")])
    assert [r.deduplicated for r in results[count:]] == [False, False, False, True]
    assert len({held.id, *(r.memory.id for r in results[count:count + 3])}) == 4
    for result in [*results[-4:], results[0]]:
        stored = agent.get(result.memory.id)
        assert stored.signature == result.memory.signature
        assert verify(agent.identity.public_key, stored.claim(), stored.signature)
    assert agent.repo.count("memories") == count + 4


def test_phase_distance_of_stored_memories(agent):
    safe = agent.store("the coolant pump is safe").memory
    unsafe = agent.store("the coolant pump is not safe").memory
    paraphrase = agent.store("the coolant pump poses no danger").memory
    assert wave.phase_difference(safe.phase, unsafe.phase) == pytest.approx(math.pi)
    assert wave.phase_difference(safe.phase, paraphrase.phase) < wave.CONSTRUCTIVE_MAX

def test_store_many_is_one_commit(agent):
    before, commits = head(agent), commit_count(agent)
    results = agent.store_many([MemoryInput(f"fact number {n}", tags=[f"t{n}"]) for n in range(7)]
                               + [{"content": "fact number 3"}])  # the last one reinforces within the batch
    assert commit_count(agent) == commits + 1
    assert {r.commit for r in results} == {head(agent)}
    assert agent.repo.count("memories") == 7
    assert results[-1].deduplicated and results[-1].memory.id == results[3].memory.id
    assert agent.repo.log(agent.branch)[1].hash == before
    assert agent.log(1)[0].message == "store 7 memories, reinforce 1"
    assert agent.store_many([]) == [] and commit_count(agent) == commits + 1

@pytest.mark.parametrize("count", [40, FORK_SIGNING_FROM + 1], ids=["signed-here", "signed-by-children-too"])
def test_a_batch_with_vectors_stores_whole_signed_memories_and_their_events(agent, count):
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(count, agent.dim)).astype(np.float32)
    results = agent.store_many([MemoryInput(f"reading {n}: deck {n % 3} is dry", tags=["deck", f"r{n}"],
                                            vector=v) for n, v in enumerate(vectors)])
    events = {r["event_id"]: r for r in agent.repo.select("local_outbox")}
    assert len(events) == count
    step = count // 40  # every memory of a small batch; of a large one, forty from end to end
    for result, vector in zip([*results[::step], results[-1]], [*vectors[::step], vectors[-1]]):
        held = agent.get(result.memory.id)
        assert vars(result.memory).keys() == vars(held).keys()  # every field, as a memory read back has them
        assert {k: v for k, v in vars(result.memory).items() if k != "vector"} == {
            k: v for k, v in vars(held).items() if k != "vector"}
        assert np.allclose(held.vector, vector / np.linalg.norm(vector), atol=1e-6)
        assert verify(agent.identity.public_key, held.claim(), held.signature)
    stored = [json.loads(r["envelope"]) for r in events.values()]
    assert sorted(e["entity_id"] for e in stored) == sorted(r.memory.id for r in results)
    assert all(e["event_type"] == "memory.stored" and e["payload"]["tags"] == ["deck", e["payload"]["tags"][1]]
               for e in stored)

@pytest.mark.parametrize("vector, problem", [
    (np.ones(10), "expected 64 dimensions"),
    (np.full(64, np.nan), "NaN"),
    (np.r_[np.ones(63), np.inf], "NaN or infinity"),
    (np.zeros(64), "all zeros"),
])
def test_bad_vectors_are_refused_before_writing(agent, vector, problem):
    agent.store("something already there")
    before, rows = head(agent), agent.repo.count("memories")
    with pytest.raises(BadInput) as e:
        agent.store("a new memory", vector=vector)
    assert e.value.field == "vector" and problem in e.value.problem
    with pytest.raises(BadInput):  # one bad item spoils the whole batch
        agent.store_many([MemoryInput("fine one"), MemoryInput("bad one", vector=vector)])
    assert head(agent) == before and agent.repo.count("memories") == rows
    assert agent.repo.query("SELECT * FROM dolt_status") == []

@pytest.mark.parametrize("kwargs, field", [
    ({"content": ""}, "content"), ({"content": " \n\t "}, "content"), ({"content": "x" * (32 * 1024 + 1)}, "content"),
    ({"content": "x", "category": "gossip"}, "category"), ({"content": "x", "importance": 0}, "importance"),
    ({"content": "x", "importance": 1.5}, "importance"), ({"content": "x", "importance": -1}, "importance"),
    ({"content": "x", "importance": "abc"}, "importance"), ({"content": "x", "phase": float("nan")}, "phase"),
    ({"content": "x", "phase": "inf"}, "phase"), ({"content": "x", "stance": "maybe"}, "stance"),
    ({"content": "x", "tags": [""]}, "tag"),
])
def test_bad_input_through_the_api_writes_nothing(agent, kwargs, field):
    before = head(agent)
    with pytest.raises(BadInput) as e:
        agent.store(**kwargs)
    assert e.value.field == field
    assert head(agent) == before and agent.repo.count("memories") == 0

def test_content_at_the_size_limit_is_accepted(agent):
    text = "é" * (16 * 1024)  # 32 KiB of UTF-8 exactly
    assert agent.store(text).memory.content == text
