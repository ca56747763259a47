"""History never goes backwards: a peer branch moved to a commit that does not descend
from the head last taken is refused and named, nothing of it is merged, and a retraction
taken from it stays. The same through `cmem pull`."""

from __future__ import annotations

import itertools
import json

import pytest

from collective.agent import Agent
from collective.model.refs import MAIN_BRANCH

LEAK = "The coolant loop of module B leaks at the second joint"
STORM = "The dust storm will reach the landing site on Friday"
TOMATOES = "The greenhouse tomatoes are ripe"
RIDGE = "The ridge survey found no water ice"

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def agents(file_trio):
    return file_trio


def roll_back(agent: Agent, commit: str) -> None:
    """The agent's branch, here and on the commons, moved back to an older commit (a
    restore from a backup, then a forced push)."""
    with agent.repo.on_branch(MAIN_BRANCH):
        agent.repo.create_branch_at(agent.branch, commit)
    agent.repo.ensure_local_tables()  # as opening the restored agent does: the moved branch has none
    agent.repo.push("origin", agent.branch, force=True)


def retracted_on_earth_1_then_rolled_back(agents: dict[str, Agent]) -> dict:
    """earth-1 forgets a memory mars-1 holds, mars-1 takes the retraction, then earth-1's
    branch on the commons goes back to before it; earth-2 meanwhile stores something new."""
    e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
    leak = e1.store(LEAK).memory
    e1.store(STORM)
    e1.push()
    m1.pull(peers=["earth-1"])
    before = e1.repo.head()
    e1.forget(leak.id)
    e1.push()
    taken = peer_report(m1.pull(peers=["earth-1"]), "earth-1")
    assert taken["summary"]["retracted"] == 1 and m1.tables.memories.require(leak.id).retracted
    retracted = e1.repo.head()
    roll_back(e1, before)
    tomatoes = e2.store(TOMATOES).memory
    e2.push()
    return {"leak": leak, "tomatoes": tomatoes, "before": before, "retracted": retracted,
            "mars_head": m1.repo.head(), "watermark": watermark(m1, "earth-1")}


def peer_report(result: dict, peer: str) -> dict:
    (report,) = [p for p in result["peers"] if p["peer"] == peer]
    return report


def watermark(agent: Agent, peer: str) -> str:
    return agent.tables.agents.get(peer)["last_synced_commit"]


def commits_since(agent: Agent, commit: str) -> list:
    return list(itertools.takewhile(lambda c: c.hash != commit, agent.repo.log()))


def earth_1_rows(agent: Agent) -> list[dict]:
    return sorted(agent.repo.select("memories", {"origin_agent": "earth-1"}), key=lambda r: r["id"])


def test_a_rolled_back_branch_does_not_unretract_a_memory(agents):
    m1 = agents["mars-1"]
    s = retracted_on_earth_1_then_rolled_back(agents)
    rows = earth_1_rows(m1)

    result = m1.pull()  # every peer: earth-2 is taken, earth-1 refused and named

    report = peer_report(result, "earth-1")
    assert report["status"] == "refused" and report["refused"] == {"history_rewritten": 1}
    assert report["history"] == {"taken": s["retracted"], "offered": s["before"]}
    assert result["refused"]["earth-1"] == {"history_rewritten": 1}
    assert m1.tables.memories.require(s["leak"].id).retracted
    assert earth_1_rows(m1) == rows and watermark(m1, "earth-1") == s["retracted"]
    assert peer_report(result, "earth-2")["status"] == "merged"
    assert s["tomatoes"].id in m1.tables.memories.by_id([s["tomatoes"].id])
    assert not [c.message for c in commits_since(m1, s["mars_head"]) if "earth-1" in c.message]
    # refused again while the branch stays behind: nothing taken, nothing moved
    again = m1.pull(peers=["earth-1"])
    assert peer_report(again, "earth-1")["refused"] == {"history_rewritten": 1}
    assert earth_1_rows(m1) == rows


def test_a_branch_that_descends_again_from_what_was_taken_is_taken(agents):
    e1, m1 = agents["earth-1"], agents["mars-1"]
    s = retracted_on_earth_1_then_rolled_back(agents)
    m1.pull()
    roll_back(e1, s["retracted"])  # restored to what was pushed, and on from there
    ridge = e1.store(RIDGE).memory
    e1.push()

    report = peer_report(m1.pull(peers=["earth-1"]), "earth-1")

    assert report["status"] == "merged" and report["refused"] == {} and report["summary"]["new"] == 1
    assert ridge.id in m1.tables.memories.by_id([ridge.id])
    assert m1.tables.memories.require(s["leak"].id).retracted
    assert watermark(m1, "earth-1") == e1.repo.head()


def test_cmem_pull_names_a_rewritten_branch_and_exits_1(agents, cmem):
    m1 = agents["mars-1"]
    s = retracted_on_earth_1_then_rolled_back(agents)

    result = cmem("pull", "--agent", "mars-1", "--json")

    assert result.exit_code == 1, result.output
    assert result.stderr == "Error: refused data from earth-1 (history_rewritten); --allow-refused exits 0\n"
    report = peer_report(json.loads(result.stdout), "earth-1")
    assert report["status"] == "refused" and report["refused"] == {"history_rewritten": 1}
    assert report["history"] == {"taken": s["retracted"], "offered": s["before"]}
    assert m1.tables.memories.require(s["leak"].id).retracted
    text = cmem("pull", "--agent", "mars-1")
    assert text.exit_code == 1
    assert (f"earth-1: REFUSED (history_rewritten=1)\n    earth-1's branch moved to {s['before'][:12]}, which "
            f"does not descend from {s['retracted'][:12]} taken last: refused") in text.stdout
    assert cmem("pull", "--agent", "mars-1", "--allow-refused").exit_code == 0
    assert m1.tables.memories.require(s["leak"].id).retracted
