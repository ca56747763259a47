"""Challenging a peer's memory: the challenger's counter-claim (its reason, a memory of its
own whose parent is the challenged one) disputes it; the case crosses the commons like a
merge's, and a person's verdict settles it on every agent. Nobody but the origin edits the
original; bad input writes nothing."""

from __future__ import annotations

import json

import pytest

from collective.errors import BadInput

from tests.integration.test_exchange import ana  # noqa: F401
from tests.integration.test_mcp import agents, call, run, served  # noqa: F401

pytestmark = pytest.mark.usefixtures("engine")

BUDGET = "Project Falcon's budget is 120,000 euros."
WHY = "Project Falcon's budget was raised to 150,000 euros in March."
ASK = "What is Project Falcon's budget?"


def challenged(trio) -> tuple:
    """earth-1 stores the budget; mars-1 pulls it and challenges it; earth-1 pulls."""
    e1, m1 = trio["earth-1"], trio["mars-1"]
    original = e1.store(BUDGET).memory
    e1.push()
    m1.pull()
    done = m1.challenge(original.id, WHY)
    m1.push()
    e1.pull()
    return original, done


@pytest.mark.parametrize("keep_counter", [True, False])
def test_a_challenge_goes_to_a_person_and_the_verdict_travels(trio, ana, keep_counter):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    original, done = challenged(trio)
    assert done["challenges"] == original.id and done["origin_agent"] == "earth-1" and done["content"] == WHY
    assert done["quarantine"]["pushed"] and done["status"] == "pending"
    counter = m1.get(done["id"])
    assert counter.origin_agent == "mars-1" and counter.parents == [original.id] and counter.disputed
    # the original is its origin's, untouched: the same text and signature everywhere
    assert e1.get(original.id).content == m1.get(original.id).content == BUDGET
    assert e1.get(original.id).signature == m1.get(original.id).signature == original.signature
    for agent in (e1, m1):
        [dispute] = agent.disputes("open")
        assert dispute["dispute"] == done["dispute"], agent.agent_id
        assert {dispute["a"]["memory"], dispute["b"]["memory"]} == {original.id, counter.id}
    side = "a" if dispute["a"]["memory"] == (counter.id if keep_counter else original.id) else "b"
    e1.resolve_dispute(done["dispute"], keep=side, note="the March revision", by="ana")
    m1.pull()
    loser, winner = (original.id, counter.id) if keep_counter else (counter.id, original.id)
    for agent in (e1, m1):
        assert agent.get(loser).refuted_by and not agent.get(winner).refuted_by, agent.agent_id
        assert agent.disputes("open") == [] and agent.get(original.id).content == BUDGET
        hits = [h.memory.id for h in agent.recall(ASK)]
        assert winner in hits and loser not in hits, (agent.agent_id, hits)


def test_bad_challenges_say_why_and_write_nothing(trio, cmem):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    theirs = e1.store(BUDGET).memory
    gone = e1.store("The airlock on deck 2 is sealed.").memory
    e1.push()
    e1.forget(gone.id)
    e1.push()
    m1.pull()
    mine = m1.store("The greenhouse tomatoes are ripe.").memory
    head = m1.repo.head(m1.branch)
    for memory_id, why, field, line in ((mine.id, WHY, "memory", "is this agent's own"),
                                        (gone.id, WHY, "memory", "is retracted"),
                                        ("no-such-memory", WHY, "memory", "no memory"),
                                        (theirs.id, "   ", "why", "must be non-empty")):
        with pytest.raises(BadInput, match=line) as raised:
            m1.challenge(memory_id, why)
        assert raised.value.field == field
        done = cmem("challenge", memory_id, why, "--agent", "mars-1")
        assert done.exit_code == 2 and done.output.startswith(f"Error: {field}: "), done.output
    assert m1.repo.head(m1.branch) == head and m1.disputes() == []


def test_cmem_challenge(trio, cmem):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    original = e1.store(BUDGET).memory
    e1.push()
    m1.pull()
    done = cmem("challenge", original.id, WHY, "--agent", "mars-1", "--json")
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["challenges"] == original.id and result["quarantine"]["pushed"]
    e1.pull()
    assert [d["dispute"] for d in e1.disputes("open")] == [result["dispute"]]


def test_memory_challenge_through_mcp(agents):
    async def scenario():
        async with served(agents, "earth-1") as earth:
            original = await call(earth, "memory_store", content=BUDGET)
            await call(earth, "memory_push")
        async with served(agents, "mars-1") as mars:
            await call(mars, "memory_pull")
            refused = await mars.call_tool("memory_update", {"memory_id": original["id"], "content": WHY})
            assert refused.is_error and "only its origin" in refused.content[0].text
            done = await call(mars, "memory_challenge", memory_id=original["id"], why=WHY)
            assert done["challenges"] == original["id"] and done["status"] == "pending"
            mine = await call(mars, "memory_store", content="The greenhouse tomatoes are ripe.")
            own = await mars.call_tool("memory_challenge", {"memory_id": mine["id"], "why": WHY})
            assert own.is_error and "is this agent's own" in own.content[0].text
        async with served(agents, "earth-1") as earth:
            await call(earth, "memory_pull")
            [dispute] = (await call(earth, "memory_disputes"))["disputes"]
            assert {dispute["a"]["content"], dispute["b"]["content"]} == {BUDGET, WHY}
    run(scenario)
