"""Where a roster exists, it alone names agents and keys (docs/concepts/security.md).

A member that takes a name before its agent joins gets nothing in: an agent the roster
does not name is held (nothing of it taken, `not_on_roster`), and once the roster names
it, the key named wins and what the squatter's key signed is let go. A rotation counts
only from a key the holder has, or the roster names, to the key the roster names: a
newcomer takes an agent's key from the roster, never from a rotation it meets first."""

from __future__ import annotations

import contextlib

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.identity import fingerprint, rotation_claim
from collective.model import iso, utcnow

from tests.integration.test_pull_verification import forged_row, peer_report

RECYCLER = "The water recycler in module A is serviced on Mondays"
HATCH = "The hatch to module D may be left open during a dust storm"
REAL = "The newbie-1 rover's batteries charge overnight in bay 3"
AIRLOCK = "The outer airlock door is safe to open during EVA without a suit check."

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def url(file_commons):
    return file_commons


@pytest.fixture
def agents(file_trio):
    return file_trio


def make_roster(agents: dict[str, Agent], home) -> None:
    """ana owns `habitat`; the three agents are on it, and all follow it."""
    reviewer_keys.init(Home.at(home), "ana")
    e1 = agents["earth-1"]
    e1.init_roster("habitat", owners=["ana"])
    for name in agents:
        e1.roster_add_agent(name)
    for agent in agents.values():
        agent.pull()


@contextlib.contextmanager
def newbie(folder, url: str, embedder, *texts: str):
    """An agent called newbie-1 in its own home, that stored `texts`."""
    with Agent.init("newbie-1", home=folder, embedder=embedder) as agent:
        agent.add_remote("origin", url)
        for text in texts:
            agent.store(text)
        yield agent


def held_of(agent: Agent, origin: str) -> set[str]:
    return {r["content"] for r in agent.repo.select("memories", {"origin_agent": origin})}


def test_an_agent_the_roster_does_not_name_is_held_until_it_names_its_key(agents, home, url, tmp_path,
                                                                          hash_embedder, cmem):
    """Attack: a member runs `cmem init --agent newbie-1` before the real one joins. Nothing
    of it is taken; once the owner names the real key, the real agent's push replaces the
    squatter's branch and its memories are taken."""
    make_roster(agents, home)
    m1 = agents["mars-1"]
    with newbie(tmp_path / "squatter", url, hash_embedder, HATCH) as squatter:
        squatter.push()
        squatted = squatter.identity.public_key
    pulled = m1.pull()
    report = peer_report(pulled, "newbie-1")
    assert report["status"] == "refused" and report["refused"] == {"not_on_roster": 1}
    assert report["key"] == {"refused": fingerprint(squatted)}
    assert pulled["refused"]["newbie-1"] == {"not_on_roster": 1}
    assert held_of(m1, "newbie-1") == set() and not m1.peers_view.known("newbie-1")
    (listed,) = [p for p in m1.peers() if p["agent"] == "newbie-1"]
    assert listed["held"] == "not_on_roster" and listed["trust"] is None
    assert listed["key_fingerprint"] == fingerprint(squatted)
    assert all(p["held"] is None for p in m1.peers() if p["agent"] != "newbie-1")
    shown = cmem("agents", "--agent", "mars-1")
    assert shown.exit_code == 0 and "HELD (not_on_roster)" in shown.stdout
    again = cmem("pull", "--agent", "mars-1")
    assert again.exit_code == 1 and "newbie-1: REFUSED (not_on_roster=1)" in again.stdout
    assert "newbie-1 (not_on_roster)" in again.stderr

    with newbie(tmp_path / "real", url, hash_embedder, REAL) as real:
        agents["earth-1"].roster_add_agent("newbie-1", key=real.identity.public_key)
        real.pull()  # takes the roster, which names its key
        pushed = real.push()  # the squatter's branch is no agent's: replaced
        assert pushed["tampered"]["reason"] == "branch_tampered"
    taken = m1.pull()
    assert peer_report(taken, "newbie-1")["status"] == "merged" and taken["refused"] == {}
    assert held_of(m1, "newbie-1") == {REAL}
    assert all(p["held"] is None for p in m1.peers())


def test_a_squatters_memories_are_let_go_when_the_roster_names_another_key(agents, home, url, tmp_path,
                                                                           hash_embedder):
    """Attack: the squatter was taken on first sight (before the roster), one of its memories
    absorbed into earth-1's. When the roster names newbie-1's real key, what the squatter's
    key signed is let go: not recalled nor counted, earth-1's memory recalled as before."""
    e1, m1 = agents["earth-1"], agents["mars-1"]
    mine = e1.store(RECYCLER).memory
    e1.push()
    with newbie(tmp_path / "squatter", url, hash_embedder, RECYCLER, HATCH) as squatter:
        squatter.push()
        squatted = squatter.identity.public_key
    e1.pull()
    assert held_of(e1, "newbie-1") == {RECYCLER, HATCH}  # first sight: taken
    (copy,) = [r for r in e1.repo.select("memories", {"origin_agent": "newbie-1"}) if r["content"] == RECYCLER]
    assert copy["absorbed_into"] == mine.id

    make_roster(agents, home)
    assert peer_report(e1.pull(), "newbie-1")["refused"] == {"not_on_roster": 1}
    assert held_of(e1, "newbie-1") == {RECYCLER, HATCH}  # held, not let go: no key is named yet

    with newbie(tmp_path / "real", url, hash_embedder, REAL) as real:
        e1.roster_add_agent("newbie-1", key=real.identity.public_key)
        pulled = e1.pull()  # the squatter's branch is still there
        report = peer_report(pulled, "newbie-1")
        assert report["status"] == "refused" and report["refused"] == {"key_not_on_roster": 1}
        assert report["let_go"] == 2 and report["key"]["let_go"] == fingerprint(squatted)
        assert held_of(e1, "newbie-1") == set() and not e1.peers_view.known("newbie-1")
        assert not [h for h in e1.recall("hatch to module D dust storm", k=5) if h.memory.origin_agent == "newbie-1"]
        (hit, *_) = e1.recall("When is the water recycler serviced?", k=3)
        assert hit.memory.id == mine.id and hit.memory.content == RECYCLER
        assert e1.tables.links.touching_any([copy["id"]]) == []
        real.pull()
        assert real.push()["tampered"]["reason"] == "branch_tampered"
    taken = e1.pull()
    assert peer_report(taken, "newbie-1")["status"] == "merged" and taken["refused"] == {}
    assert held_of(e1, "newbie-1") == {REAL}
    assert e1.pull()["refused"] == {}


def test_a_dispute_over_a_squatters_memory_closes_when_it_is_let_go(agents, home, url, tmp_path, hash_embedder,
                                                                    cmem):
    """earth-1 challenged what the squatter said as newbie-1 (taken on first sight). When
    the roster names newbie-1's real key, the squatter's memory is let go and the dispute
    closes with that reason: no person is asked about it; it stays in history."""
    e1 = agents["earth-1"]
    with newbie(tmp_path / "squatter", url, hash_embedder, HATCH) as squatter:
        squatter.push()
    e1.pull()
    (hatch,) = [r["id"] for r in e1.repo.select("memories", {"origin_agent": "newbie-1"})]
    challenged = e1.challenge(hatch, "The hatch to module D must stay shut during a dust storm")
    assert len(e1.disputes("open")) == 1
    make_roster(agents, home)
    with newbie(tmp_path / "real", url, hash_embedder, REAL) as real:
        e1.roster_add_agent("newbie-1", key=real.identity.public_key)
        assert peer_report(e1.pull(), "newbie-1")["let_go"] == 1
    assert e1.disputes("open") == []
    (closed,) = e1.disputes("closed")
    assert closed["closed"] == {"reason": "let_go", "memories": [hatch]}
    assert closed["dispute"] == challenged["dispute"]
    assert e1.status()["counts"]["open_cases"] == 0
    e1.close()
    shown = cmem("quarantine", "show", closed["dispute"], "--agent", "earth-1")
    assert shown.exit_code == 0 and f"closed: {hatch}: signed by no key the roster names" in shown.stdout
    refused = cmem("quarantine", "resolve", closed["dispute"], "--keep", "a", "--note", "checked", "--agent", "earth-1")
    assert refused.exit_code == 2 and "is closed (let_go)" in refused.output


def test_a_newcomer_takes_an_agents_key_from_the_roster_not_from_a_forged_rotation(agents, home, url,
                                                                                   hash_embedder):
    """Attack: on earth-2/working a member adds a rotation from its own key to earth-2's real
    key, signed by its own, and a memory its own key signed. Agents that know earth-2 refuse
    it; a newcomer that follows the roster refuses it too, and never recalls it."""
    make_roster(agents, home)
    e2, m1 = agents["earth-2"], agents["mars-1"]
    e2.store(RECYCLER)
    e2.push()
    agents["earth-1"].pull()  # earth-1 knows earth-2 before the forgery
    member, real = m1.identity, e2.identity.public_key
    at = iso(utcnow())
    m1.repo.fetch("origin")
    m1.repo.create_branch_at("earth-2/working", "origin/earth-2/working")
    with m1.repo.on_branch("earth-2/working"), m1.repo.transaction():
        m1.tables.key_rotations.write([{"agent_id": "earth-2", "old_key": member.public_key, "new_key": real,
                                        "rotated_at": at,
                                        "signature": member.sign(rotation_claim("earth-2", member.public_key,
                                                                                real, at))}])
        m1.repo.insert("memories", [forged_row(m1, "earth-2", AIRLOCK, signer=member).to_row()])
        m1.repo.commit("earth-2 learns", author="earth-2")
    m1.repo.push("origin", "earth-2/working")

    known = agents["earth-1"].pull()
    assert peer_report(known, "earth-2")["refused"] == {"bad_signature": 1}
    with Agent.init("venus-1", home=home, embedder=hash_embedder) as newcomer:
        newcomer.add_remote("origin", url)
        first = newcomer.pull()
        report = peer_report(first, "earth-2")
        assert report["refused"] == {"bad_signature": 1}
        assert report["key"] == {"roster": fingerprint(real)}
        assert held_of(newcomer, "earth-2") == {RECYCLER}
        assert newcomer.tables.key_rotations.all() == []
        assert not [h for h in newcomer.recall("Is the outer airlock door safe to open?", k=5)
                    if h.memory.content == AIRLOCK]
