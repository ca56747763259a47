"""Promotions to main: a memory reaches the consensus branch only when a person approves
it or two agents other than its origin endorse it, as one commit naming them; every
agent's pull brings consensus in, and `recall --consensus` recalls only that.

mars-1 learned that the coolant pump in module C is not safe; earth-1 and earth-2
hold it after a pull. Both engines; the commons is a file.
"""

from __future__ import annotations

import json
import threading

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.errors import BadInput, NotFound, NotShared
from collective.identity import Identity, endorsement
from collective.model import iso, utcnow
from collective.model.refs import MAIN_BRANCH, QUARANTINE_BRANCH, tracking
from collective.promotion import consensus
from tests.simulation.rogue import forge_on_main


PUMP = "The coolant pump in module C is not safe to operate"
ROVER = "Rover 5 battery was replaced on Tuesday"

pytestmark = pytest.mark.usefixtures("engine")


def file_commons(tmp_path, engine) -> str:
    folder = tmp_path / "commons"
    folder.mkdir()
    return f"file://{folder}" if engine == "dolt" else f"file://{folder / 'commons.db'}"


@pytest.fixture
def agents(home, tmp_path, hash_embedder, engine, sharing):
    with sharing(home, file_commons(tmp_path, engine), hash_embedder) as made:
        yield made


@pytest.fixture
def pump(agents):
    """mars-1's memory, held by all three, proposed by mars-1 and seen by the others."""
    e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
    memory = m1.store(PUMP).memory
    m1.store(ROVER)
    m1.push()
    e1.pull()
    e2.pull()
    m1.promote(memory.id, note="measured twice")
    e1.pull()
    e2.pull()
    return memory


def commons_main(agent: Agent) -> str:
    agent.repo.fetch("origin")
    return consensus.commons_main(agent.repo, "origin")


def promote_commits(agent: Agent) -> list:
    return [c for c in agent.repo.log(MAIN_BRANCH) if c.message.startswith("promote ")]


def test_one_endorsement_is_not_enough_and_consensus_stays_untouched(agents, pump):
    e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
    before = commons_main(e1)
    result = e1.endorse(pump.id)
    assert result["status"] == "pending" and result["endorsements"] == ["earth-1"]
    mains = {a.agent_id: a.repo.head(MAIN_BRANCH) for a in (e1, e2, m1)}
    e2.store("The coolant pump in module C is safe to operate")   # a contradiction: a case to share
    for agent in (e2, e1, m1, e2):   # push, pull, the quarantine's sharing and a dream leave main alone
        agent.push()
        agent.pull()
    assert e1.cases() and tracking("origin", QUARANTINE_BRANCH) in e1.repo.remote_branches()
    m1.dream(full=True)
    assert commons_main(e2) == before
    assert {a.agent_id: a.repo.head(MAIN_BRANCH) for a in (e1, e2, m1)} == mains
    assert [p["memory"] for p in e2.promotions()] == [pump.id]
    assert e2.promotions()[0]["endorsements"] == ["earth-1"]
    assert e2.recall("coolant pump", consensus=True) == []


def test_two_endorsements_promote_in_one_commit_naming_them(agents, pump):
    e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
    e1.endorse(pump.id)
    e2.pull()
    main_before = e2.repo.head(MAIN_BRANCH)
    result = e2.endorse(pump.id)
    assert result["status"] == "promoted", result
    head = commons_main(m1)
    commits = promote_commits(e2)
    assert len(commits) == 1 and commits[0].hash == head == result["commit"]
    assert commits[0].message == f"promote {pump.id}: endorsed by earth-1, earth-2"
    # main moved by exactly that one commit
    assert [c.hash for c in e2.repo.log(MAIN_BRANCH, limit=2)] == [head, main_before]
    m1.pull()
    assert m1.promotions("promoted")[0]["commit"] == head
    assert [h.memory.id for h in m1.recall(PUMP, consensus=True)] == [pump.id]
    assert ROVER not in [h.memory.content for h in m1.recall(ROVER, consensus=True)]


def test_a_pull_brings_consensus_to_a_third_agent(agents, pump, home, hash_embedder):
    e1, e2 = agents["earth-1"], agents["earth-2"]
    e1.endorse(pump.id)
    e2.pull()
    e2.endorse(pump.id)
    with Agent.init("venus-1", home=home, embedder=hash_embedder) as v1:
        v1.add_remote("origin", e1.remotes()["origin"])
        assert v1.recall(PUMP, consensus=True) == []
        v1.pull()
        assert [h.memory.id for h in v1.recall(PUMP, consensus=True)] == [pump.id]
        assert v1.repo.head(MAIN_BRANCH) == commons_main(v1)


def test_a_persons_approval_promotes(agents, pump, home):
    e1, m1 = agents["earth-1"], agents["mars-1"]
    made = reviewer_keys.init(Home.at(home), "ana")
    e1.add_reviewer("ana", made["public_key"])
    result = e1.decide_promotion(pump.id, approve=True, note="checked the logs", by="ana")
    assert result["status"] == "promoted" and result["decided_by"] == "ana"
    assert promote_commits(e1)[0].message == f"promote {pump.id}: approved by ana"
    m1.pull()
    assert [h.memory.id for h in m1.recall(PUMP, consensus=True)] == [pump.id]
    # a second promotion is one more commit on top of the commons' main
    rover = next(h.memory for h in m1.recall(ROVER, k=5) if h.memory.content == ROVER)
    m1.promote(rover.id)
    e1.pull()
    before = commons_main(e1)
    second = e1.decide_promotion(rover.id, approve=True, note="the rover log says so", by="ana")
    assert [c.hash for c in e1.repo.log(MAIN_BRANCH, limit=2)] == [second["commit"], before]
    assert second["commit"] == commons_main(m1)


def test_an_unauthorised_approval_awaits_and_a_rejection_blocks(agents, pump, home):
    e1, e2 = agents["earth-1"], agents["earth-2"]
    made = reviewer_keys.init(Home.at(home), "ana")
    before = commons_main(e1)
    waiting = e1.decide_promotion(pump.id, approve=True, note="fine", by="ana")
    assert waiting["status"] == "pending" and waiting["awaiting"]
    assert commons_main(e1) == before
    e2.add_reviewer("ana", made["public_key"])
    e2.pull()   # ana's approval arrives where she is honoured: earth-2 promotes
    assert e2.promotions("promoted")[0]["decided_by"] == "ana"


def test_rejection(agents, pump, home):
    e1, e2 = agents["earth-1"], agents["earth-2"]
    made = reviewer_keys.init(Home.at(home), "ana")
    for agent in (e1, e2):
        agent.add_reviewer("ana", made["public_key"])
    before = commons_main(e1)
    rejected = e1.decide_promotion(pump.id, approve=False, note="one reading only", by="ana")
    assert rejected["status"] == "rejected"
    e2.pull()
    assert e2.promotions("rejected")[0]["memory"] == pump.id
    with pytest.raises(BadInput):
        e2.endorse(pump.id)
    assert commons_main(e2) == before


def test_self_endorsement_is_refused_and_nothing_written(agents, pump):
    m1 = agents["mars-1"]
    head = m1.repo.head()
    with pytest.raises(BadInput, match="own"):
        m1.endorse(pump.id)
    assert m1.repo.head() == head


def test_forged_and_self_endorsements_arriving_by_pull_are_ignored_and_reported(agents, pump, tmp_path, cmem):
    e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
    e1.endorse(pump.id)
    stranger = Identity.generate(tmp_path / "stranger.pem")
    at = iso(utcnow())
    forged = endorsement(stranger, pump.id, "earth-2", at)     # in earth-2's name, not its key
    own = endorsement(m1.identity, pump.id, "mars-1", at)        # the origin's own
    m1.repo.fetch("origin")
    m1.repo.create_branch_at(QUARANTINE_BRANCH, tracking("origin", QUARANTINE_BRANCH))
    with m1.repo.on_branch(QUARANTINE_BRANCH), m1.repo.transaction():
        m1.tables.endorsements.write([forged, own])
        m1.repo.commit("promotions: endorse", author="mars-1")
    m1.repo.push("origin", QUARANTINE_BRANCH)
    before = commons_main(e1)
    result = e1.pull()
    refused = result["refused"][QUARANTINE_BRANCH]
    assert refused["forged_endorsement"] == [f"{pump.id} by earth-2"]
    assert refused["self_endorsement"] == [f"{pump.id} by mars-1"]
    assert e1.promotions()[0]["endorsements"] == ["earth-1"]
    assert commons_main(e1) == before
    pulled = cmem("pull", "--agent", "earth-2")   # as a forged case does: named, exit 1
    assert pulled.exit_code == 1 and "forged_endorsement" in pulled.stderr and "self_endorsement" in pulled.stderr
    assert "REFUSED 1 row(s) (forged_endorsement)" in pulled.stdout


def test_bad_input_writes_nothing(agents, pump, home):
    e1, m1 = agents["earth-1"], agents["mars-1"]
    reviewer_keys.init(Home.at(home), "ana")
    heads = {a: a.repo.head() for a in (e1, m1)}
    with pytest.raises(NotFound):
        e1.promote("no-such-memory")
    with pytest.raises(BadInput, match="already proposed"):
        e1.promote(pump.id)
    with pytest.raises(NotFound):
        e1.decide_promotion("no-such-memory", approve=True, note="x", by="ana")
    with pytest.raises(BadInput, match="note"):
        e1.decide_promotion(pump.id, approve=True, note=" ", by="ana")
    (rover,) = e1.repo.select("memories", {"content": ROVER})
    for note in ("\u200b", "\x07\u2028", "y" * 40000):  # nothing visible, or longer than content may be
        with pytest.raises(BadInput) as e:
            e1.decide_promotion(pump.id, approve=True, note=note, by="ana")
        assert e.value.field == "note" and len(str(e.value)) < 100
        with pytest.raises(BadInput) as e:
            e1.promote(rover["id"], note=note)
        assert e.value.field == "note"
    with pytest.raises(BadInput, match="status"):
        e1.promotions("sideways")
    assert {a: a.repo.head() for a in (e1, m1)} == heads


def test_approving_a_promoted_one_is_refused(agents, pump, home):
    e1 = agents["earth-1"]
    made = reviewer_keys.init(Home.at(home), "ana")
    e1.add_reviewer("ana", made["public_key"])
    e1.decide_promotion(pump.id, approve=True, note="yes", by="ana")
    head = e1.repo.head()
    with pytest.raises(BadInput, match="promoted, not pending"):
        e1.decide_promotion(pump.id, approve=False, note="no", by="ana")
    with pytest.raises(BadInput, match="already on main"):
        e1.promote(pump.id)
    assert e1.repo.head() == head


def test_a_lost_race_gives_one_promotion(agents, pump):
    """earth-1 and earth-2 both hold two endorsements and land at once: one commit."""
    e1, e2 = agents["earth-1"], agents["earth-2"]
    e1.endorse(pump.id)
    e2.pull()
    e2.endorse(pump.id)   # earth-2 landed it; earth-1 has not fetched since
    stale = consensus.commons_main(e1.repo, "origin")
    row = e1.tables.promotions.get(pump.id)
    memory = e1.tables.memories.rows_by_id([pump.id])[0]
    with pytest.raises(Exception) as lost:
        consensus.land_once(e1.repo, e1.tables, "origin", stale, memory_row=memory, promotion=row,
                            endorsements=[], reason="endorsed by earth-1, earth-2", author="earth-1")
    assert type(lost.value).__name__ == "NonFastForward"
    e1.repo.fetch("origin")
    again = consensus.land(e1.repo, e1.tables, "origin", memory_row=memory, promotion=row, endorsements=[],
                           reason="endorsed by earth-1, earth-2", author="earth-1",
                           follow=lambda: e1.promotion.follow_main("origin"))
    assert again["landed"] is False
    assert len(promote_commits(e1)) == 1 and e1.repo.head(MAIN_BRANCH) == commons_main(e2)


def test_two_agents_landing_at_once_give_one_promotion(agents, pump):
    e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
    e1.endorse(pump.id)
    e2.pull()
    e2.promotion.endorse(pump.id)   # recorded, not shared yet: both now hold two endorsements
    e1.repo.fetch("origin")
    e1.promotion.take_from("origin")
    e2.promotion.share("origin")
    e1.repo.fetch("origin")
    e1.promotion.take_from("origin")
    results, errors = [], []

    def settle(agent):
        try:
            agent.repo.fetch("origin")
            results.extend(agent.promotion.settle("origin"))
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=settle, args=(a,)) for a in (e1, e2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(r["landed"] for r in results) == [False, True]
    m1.pull()
    assert len(promote_commits(m1)) == 1


def test_over_every_kind_of_commons(commons_url, home, hash_embedder, sharing):
    """A file or a served commons (a Dolt server's starts with an empty main)."""
    with sharing(home, commons_url, hash_embedder) as made:
        e1, e2, m1 = made["earth-1"], made["earth-2"], made["mars-1"]
        memory = m1.store(PUMP).memory
        m1.push()
        m1.promote(memory.id)
        e1.pull()
        e1.endorse(memory.id)
        e2.pull()
        assert e2.endorse(memory.id)["status"] == "promoted"
        m1.pull()
        assert [h.memory.id for h in m1.recall(PUMP, consensus=True)] == [memory.id]
        assert len(promote_commits(m1)) == 1


@pytest.fixture
def agents_with_the_real_model(home, tmp_path, real_embedder, engine, sharing):
    """As `agents`, with the model `cmem` loads."""
    with sharing(home, file_commons(tmp_path, engine), real_embedder) as made:
        yield made


def test_the_cli_promotes_by_two_endorsements_and_recalls_consensus(agents_with_the_real_model, cmem):
    m1 = agents_with_the_real_model["mars-1"]
    memory = m1.store(PUMP).memory
    m1.push()
    proposed = cmem("promote", memory.id, "--note", "measured twice", "--agent", "mars-1", "--json")
    assert proposed.exit_code == 0, proposed.output
    assert json.loads(proposed.stdout)["status"] == "pending"
    for name in ("earth-1", "earth-2"):
        assert cmem("pull", "--agent", name, "--json").exit_code == 0
        endorsed = cmem("endorse", memory.id, "--agent", name)
        assert endorsed.exit_code == 0, endorsed.output
    assert "promoted" in endorsed.stdout and "endorsed by earth-1, earth-2" in endorsed.stdout
    listed = cmem("promotions", "list", "--status", "promoted", "--agent", "earth-2", "--json")
    assert [p["memory"] for p in json.loads(listed.stdout)] == [memory.id]
    assert cmem("pull", "--agent", "mars-1", "--json").exit_code == 0
    recalled = cmem("recall", "coolant pump", "--consensus", "--agent", "mars-1", "--json")
    assert [h["id"] for h in json.loads(recalled.stdout)["hits"]] == [memory.id]


@pytest.mark.parametrize("args, message", [
    (["promote", "no-such-memory"], "Error: memory: no memory with id 'no-such-memory'\n"),
    (["promote", "{pump}"], "Error: memory: {pump} was already proposed by mars-1\n"),
    (["endorse", "{pump}", "--agent", "mars-1"], "Error: memory: {pump} is mars-1's own memory: "
                                                  "an agent cannot endorse its own\n"),
    (["promotions", "approve", "no-such-memory", "--note", "x", "--by", "ana"],
     "Error: memory: no promotion proposed for 'no-such-memory' (propose it with `cmem promote`)\n"),
    (["promotions", "reject", "{pump}", "--note", "x", "--by", "nobody"], None),
    # an unknown remote is said before anything is signed or committed
    (["promote", "{rover}", "nosuchremote", "--agent", "mars-1"], "Error: remote: no remote named 'nosuchremote'\n"),
    (["endorse", "{pump}", "nosuchremote"], "Error: remote: no remote named 'nosuchremote'\n"),
    (["promotions", "approve", "{pump}", "nosuchremote", "--note", "x", "--by", "ana"],
     "Error: remote: no remote named 'nosuchremote'\n"),
])
def test_bad_input_on_the_cli_is_one_line_exit_2_and_writes_nothing(agents, pump, cmem, home, args, message):
    reviewer_keys.init(Home.at(home), "ana")
    heads = {n: a.repo.head() for n, a in agents.items()}
    (rover,) = agents["mars-1"].repo.select("memories", {"content": ROVER})
    args = [a.replace("{pump}", pump.id).replace("{rover}", rover["id"]) for a in args]
    result = cmem(*args, *([] if "--agent" in args else ["--agent", "earth-1"]))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    if message:
        assert result.stderr == message.replace("{pump}", pump.id)
    assert {n: a.repo.head() for n, a in agents.items()} == heads


def test_a_memory_its_origin_did_not_sign_never_reaches_main(agents, foreign):
    """mars-1 makes up a memory in earth-1's name and gets it endorsed: it stays off main."""
    e2, m1 = agents["earth-2"], agents["mars-1"]
    made_up = foreign(m1, "earth-1", "The coolant pump in module C was never inspected")
    m1.push()
    m1.promote(made_up.id)
    m1.endorse(made_up.id)
    before = commons_main(e2)
    e2.pull()
    result = e2.endorse(made_up.id)
    assert result["status"] == "pending" and result["endorsements"] == ["earth-2", "mars-1"]
    assert commons_main(e2) == before and e2.recall(made_up.content, consensus=True) == []


def test_an_approval_the_commons_did_not_get_lands_at_the_next_pull(agents, pump, home, tmp_path):
    e1 = agents["earth-1"]
    made = reviewer_keys.init(Home.at(home), "ana")
    e1.add_reviewer("ana", made["public_key"])
    main_before = e1.repo.head(MAIN_BRANCH)
    (tmp_path / "commons").rename(tmp_path / "away")
    with pytest.raises(NotShared) as unshared:
        e1.decide_promotion(pump.id, approve=True, note="checked the logs", by="ana")
    assert unshared.value.result["decided_by"] == "ana" and unshared.value.result["status"] == "pending"
    assert e1.repo.head(MAIN_BRANCH) == main_before
    (tmp_path / "away").rename(tmp_path / "commons")
    pulled = e1.pull()
    assert [p["memory"] for p in pulled["promotions"]["promoted"]] == [pump.id]
    assert e1.promotions("promoted")[0]["decided_by"] == "ana"


def test_a_main_forged_while_landing_is_not_built_on(agents, pump):
    """The commons' main moves to a forgery between an agent's check of it and its landing:
    the agent lands nothing on it, its own main holds none of it, and the pull says why."""
    e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
    e1.endorse(pump.id)
    e2.pull()
    e2.promotion.endorse(pump.id)  # recorded here, due, not landed yet
    forged = forge_on_main(m1, "earth-1", "The airlock override code is 0000")
    forged_head = commons_main(m1)
    e2.repo.fetch("origin")
    (result,) = e2.promotion.settle("origin")
    assert result["landed"] is False and result["main_refused"]
    assert not consensus.on_main(e2.tables, forged) and not consensus.on_main(e2.tables, pump.id)
    assert commons_main(e2) == forged_head  # not built on
    pulled = e2.pull()
    assert pulled["promotions"]["main_refused"] and pulled["promotions"]["promoted"] == []
    assert e2.recall("airlock override code", consensus=True) == []
