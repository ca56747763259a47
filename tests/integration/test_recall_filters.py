"""Recall narrowed by tag, category, origin and time, the same through the index and as of a
commit; `list` pages through what recall can find; bad filters are refused, naming what is wrong."""

from __future__ import annotations

import time

import pytest

from collective.agent import Agent, MemoryInput
from collective.errors import BadInput
from collective.model import iso, utcnow


@pytest.fixture
def kept(agent, foreign):
    """Six memories about the pump: tags, categories, two origins and two moments."""
    made = {}
    made["hw"] = agent.store("the coolant pump hums", tags=["hardware", "deck-3"]).memory
    made["skill"] = agent.store("how to bleed the coolant pump", category="skill", tags=["hardware"]).memory
    made["social"] = agent.store("Ada likes to fix the coolant pump", category="social").memory
    time.sleep(0.01)
    moment = iso(utcnow())
    time.sleep(0.01)
    made["late"] = agent.store("the coolant pump was replaced", tags=["deck-3"]).memory
    made["mars"] = foreign(agent, "mars-1", "the coolant pump on Mars is dusty")
    made["venus"] = foreign(agent, "venus-2", "the coolant pump on Venus melted", category="experience")
    return agent, made, moment


def found(agent: Agent, **filters) -> set[str]:
    return {h.memory.id for h in agent.recall("coolant pump", k=20, min_score=0.0, **filters)}


def ids(made: dict, *names: str) -> set[str]:
    return {made[n].id for n in names}


def test_each_filter_narrows_and_filters_combine(kept):
    agent, made, moment = kept
    assert found(agent) == ids(made, *made)
    assert found(agent, tags=["hardware"]) == ids(made, "hw", "skill")
    assert found(agent, tags=["hardware", "deck-3"]) == ids(made, "hw")  # all of the tags
    assert found(agent, categories=["skill", "social"]) == ids(made, "skill", "social")  # any of them
    assert found(agent, origins=["mars-1", "venus-2"]) == ids(made, "mars", "venus")
    assert found(agent, since=moment, origins=["earth-1"]) == ids(made, "late")
    assert found(agent, until=moment) == ids(made, "hw", "skill", "social")
    assert found(agent, tags=["deck-3"], since=moment) == ids(made, "late")
    assert found(agent, tags=["no-such-tag"]) == set()


def test_filters_as_of_a_commit_read_the_rows_alike(kept):
    agent, made, moment = kept
    head = agent.log(1)[0].hash
    for filters in ({"tags": ["hardware"]}, {"categories": ["social"]}, {"origins": ["venus-2"]},
                    {"since": moment}, {"tags": ["deck-3"], "until": moment}):
        assert found(agent, as_of=head, **filters) == found(agent, **filters), filters


def test_list_pages_newest_first_and_narrows_like_recall(kept):
    agent, made, moment = kept
    first = agent.list_memories(limit=4)
    second = agent.list_memories(limit=4, offset=4)
    assert first["total"] == second["total"] == 6 and second["offset"] == 4
    listed = [m["id"] for m in first["memories"] + second["memories"]]
    assert len(listed) == len(set(listed)) == 6
    created = [m["created_at"] for m in first["memories"] + second["memories"]]
    assert created == sorted(created, reverse=True)
    assert {m["id"] for m in agent.list_memories(tags=["hardware"])["memories"]} == ids(made, "hw", "skill")
    assert agent.list_memories(offset=6)["memories"] == []
    assert agent.list_memories(origins=["mars-1"])["total"] == 1


@pytest.mark.parametrize("filters, field", [
    ({"categories": ["gossip"]}, "category"), ({"origins": ["Not An Id"]}, "origin"),
    ({"since": "yesterday"}, "since"), ({"until": 5}, "until"), ({"tags": "hardware"}, "tags"),
    ({"tags": [""]}, "tag"), ({"since": "2026-02-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "since"),
    ({"min_score": -0.1}, "min-score"), ({"min_score": "high"}, "min-score"),
])
def test_bad_filters_are_refused_naming_what_is_wrong(agent, filters, field):
    agent.store("the coolant pump hums")
    head = agent.log(1)[0].hash
    with pytest.raises(BadInput) as e:
        agent.recall("pump", **filters)
    assert e.value.field == field and "\n" not in str(e.value)
    if "min_score" not in filters:
        with pytest.raises(BadInput):
            agent.list_memories(**filters)
    assert agent.log(1)[0].hash == head


@pytest.mark.parametrize("kwargs, field", [({"limit": 0}, "limit"), ({"offset": -1}, "offset"),
                                           ({"offset": True}, "offset")])
def test_bad_pages_are_refused(agent, kwargs, field):
    with pytest.raises(BadInput) as e:
        agent.list_memories(**kwargs)
    assert e.value.field == field


def test_the_lexical_index_is_saved_with_the_vectors_and_rebuilt_when_missing(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        agent.store_many([MemoryInput(f"sensor {n} reads nominal") for n in range(20)])
        agent.store("the coolant pump hums", tags=["hardware"])
        assert [h.memory.content for h in agent.recall("pump", k=1)] == ["the coolant pump hums"]
        agent.keeper.save()
        folder = agent.folder
    assert (folder / "index-lexical.npz").exists()
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as again:
        assert [h.memory.content for h in again.recall("pump", k=1, tags=["hardware"])] == ["the coolant pump hums"]
    (folder / "index-lexical.npz").unlink()
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as again:
        assert [h.memory.content for h in again.recall("pump", k=1)] == ["the coolant pump hums"]
        assert again.keeper.prepare()["index"] == "current"
    assert (folder / "index-lexical.npz").exists()
