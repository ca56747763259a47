"""An agent's own branch on the commons holds only what the agent pushed. A member that
appends a commit to it there (a roster of its own making, an edited memory) gets nothing
into the agent's database: the agent's next push refuses it (branch_tampered), says so,
and puts its branch back. On both engines (docs/concepts/security.md)."""

from __future__ import annotations

import json

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home

TANK = "The spare oxygen tank in module C weighs 40 kg"
FORGED = "The spare oxygen tank in module C weighs 400 kg"
STORM = "The dust storm will reach the landing site on Friday"
ASK = "How much does the spare oxygen tank weigh?"
ASK_LATER = "The rover's left wheel motor was replaced on sol 212"

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def agents(file_trio):
    return file_trio


def append_forgery(tmp_path, url: str, embedder, memory_id: str, *, key: bool = False, roster: bool = True) -> str:
    """A member writes onto earth-2/working on the commons: a roster of its own (its own
    'ana' owns it and reviews; not with `roster` False) and earth-2's memory saying 400 kg;
    with `key`, its own key as earth-2's too. Returns the new head."""
    rogue_home = tmp_path / "rogue"
    reviewer_keys.init(Home.at(rogue_home), "ana")
    with Agent.init("mallory-1", home=rogue_home, embedder=embedder) as rogue:
        rogue.init_roster("habitat", owners=["ana"])
        rogue.roster_add_reviewer("ana")
        versions = rogue.tables.roster.rows() if roster else []
        rogue.add_remote("origin", url)
        rogue.repo.fetch("origin")
        rogue.repo.create_branch_at("earth-2/working", "origin/earth-2/working")
        with rogue.repo.on_branch("earth-2/working"), rogue.repo.transaction():
            rogue.tables.roster.write(versions)
            rogue.tables.memories.set(memory_id, content=FORGED, summary=FORGED)
            if key:
                rogue.tables.agents.set_key("earth-2", rogue.identity.public_key)
            rogue.repo.commit("earth-2 learns", author="earth-2")
        rogue.repo.push("origin", "earth-2/working")
        return rogue.repo.head("earth-2/working")


def commons_head(agent: Agent, branch: str) -> str:
    return agent.repo.fetch("origin")[branch]


def assert_untouched(e2: Agent, forged: str) -> None:
    """Nothing of the forgery in earth-2's database: no roster, the memory as it said it."""
    assert not e2.repo.is_ancestor(forged, e2.repo.head())
    assert e2.tables.roster.rows() == []
    assert [r["content"] for r in e2.repo.select("memories", {"content": FORGED})] == []
    (hit, *_) = e2.recall(ASK, k=3)
    assert hit.memory.content == TANK


@pytest.mark.parametrize("new_work", [True, False], ids=["diverged", "behind"])
def test_a_commit_appended_to_an_agents_branch_never_enters_its_database(agents, tmp_path, hash_embedder, new_work):
    e2, m1 = agents["earth-2"], agents["mars-1"]
    tank = e2.store(TANK).memory
    e2.push()
    assert m1.pull(peers=["earth-2"])["refused"] == {}
    url = e2.remotes()["origin"]
    forged = append_forgery(tmp_path, url, hash_embedder, tank.id)
    if new_work:  # the push is no fast-forward
        e2.store(STORM)
    pushed = e2.push()
    head = e2.repo.head()
    assert pushed["tampered"] == {"reason": "branch_tampered", "branch": "earth-2/working",
                                  "found": forged, "restored": head}
    assert_untouched(e2, forged)
    assert commons_head(e2, "earth-2/working") == head  # put back
    assert e2.push()["tampered"] is None  # said once: the commons holds our head again
    # a peer that took earth-2 before the forgery takes what follows
    pulled = m1.pull(peers=["earth-2"])
    assert pulled["refused"] == {}
    assert {r["content"] for r in m1.repo.select("memories", {"origin_agent": "earth-2"})} == (
        {TANK, STORM} if new_work else {TANK})


def test_a_key_written_on_the_branch_is_no_agent_made_again(agents, tmp_path, hash_embedder):
    """Another key shown for earth-2 on a branch grown from earth-2's own: a forgery, put
    back, not the advice for an agent made again under its id."""
    e2 = agents["earth-2"]
    tank = e2.store(TANK).memory
    e2.push()
    forged = append_forgery(tmp_path, e2.remotes()["origin"], hash_embedder, tank.id, key=True)
    assert e2.push()["tampered"]["found"] == forged
    assert_untouched(e2, forged)
    assert commons_head(e2, "earth-2/working") == e2.repo.head()


def test_cmem_push_says_the_branch_was_put_back(agents, tmp_path, hash_embedder, cmem):
    e2 = agents["earth-2"]
    tank = e2.store(TANK).memory
    e2.push()
    forged = append_forgery(tmp_path, e2.remotes()["origin"], hash_embedder, tank.id)
    e2.store(STORM)
    head = e2.repo.head()
    e2.close()  # the CLI opens it on its own
    pushed = cmem("push", "--agent", "earth-2", "--json")
    assert pushed.exit_code == 0, pushed.output
    report = json.loads(pushed.stdout)
    assert report["tampered"] == {"reason": "branch_tampered", "branch": "earth-2/working", "found": forged,
                                  "restored": head}
    (warning,) = pushed.stderr.splitlines()
    assert warning.startswith("WARNING: origin held earth-2/working") and "branch_tampered" in warning


def test_a_branch_the_commons_rolled_back_is_pushed_forward_unreported(agents):
    """An older head of ours on the commons is ours: a fast-forward puts it right."""
    e2, m1 = agents["earth-2"], agents["mars-1"]
    e2.store(TANK)
    e2.push()
    before = e2.repo.head()
    e2.store(STORM)
    e2.push()
    m1.repo.fetch("origin")  # another hand moves the commons' copy back to an older head of ours
    m1.repo.create_branch_at("earth-2/working", before)
    m1.repo.push("origin", "earth-2/working", force=True)
    assert commons_head(e2, "earth-2/working") == before
    assert e2.push()["tampered"] is None and commons_head(e2, "earth-2/working") == e2.repo.head()


def test_a_peer_that_pulled_in_the_tamper_window_takes_the_branch_put_back(agents, tmp_path, hash_embedder):
    """A peer that pulled earth-2 while the forgery stood took what earth-2 signed and none
    of the rest, and earth-2's branch put back is no rewritten history to it: what earth-2
    learns next arrives."""
    e2, m1 = agents["earth-2"], agents["mars-1"]
    tank = e2.store(TANK).memory
    e2.push()
    assert m1.pull(peers=["earth-2"])["refused"] == {}
    e2.store(STORM)
    e2.push()
    forged_on = e2.repo.head()
    append_forgery(tmp_path, e2.remotes()["origin"], hash_embedder, tank.id, roster=False)
    assert m1.pull(peers=["earth-2"])["refused"] == {"earth-2": {"bad_signature": 1}}
    e2.store(ASK_LATER)
    assert e2.push()["tampered"] is not None
    after = m1.pull(peers=["earth-2"])
    assert after["refused"] == {}, after["peers"]
    assert after["peers"][0]["history"]["put_back_from"] == forged_on
    assert {r["content"] for r in m1.repo.select("memories", {"origin_agent": "earth-2"})} == {TANK, STORM, ASK_LATER}


def test_a_peer_that_first_met_the_agent_in_the_tamper_window_takes_the_memory_the_forgery_hid(
        agents, tmp_path, hash_embedder):
    """The forgery edited a memory mars-1 had never seen: refused, it hid the real one. Once
    earth-2's branch is put back, mars-1 reads again what the forged commit touched."""
    e2, m1 = agents["earth-2"], agents["mars-1"]
    tank = e2.store(TANK).memory
    e2.push()
    append_forgery(tmp_path, e2.remotes()["origin"], hash_embedder, tank.id, roster=False)
    assert m1.pull(peers=["earth-2"])["refused"] == {"earth-2": {"bad_signature": 1}}
    assert m1.tables.memories.rows_by_id([tank.id]) == []
    assert e2.push()["tampered"] is not None
    assert m1.pull(peers=["earth-2"])["refused"] == {}
    assert [r["content"] for r in m1.tables.memories.rows_by_id([tank.id])] == [TANK]
