"""Three agents meeting through a commons, end to end, with the real embedder.

earth-1 and earth-2 agree that the coolant pump is safe, mars-1 says it is not,
and mars-1 is only half sure about the dust storm earth-1 reported. Each story
runs once through a file commons and once through an HTTP commons, on each engine
(the `trio` and `commons_url` fixtures, tests/integration/conftest.py).
"""

from __future__ import annotations

import json
import math

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.core import wave
from collective.model.refs import QUARANTINE_BRANCH
from collective.quarantine import cases as quarantine

PUMP = "The coolant pump in module B is safe to operate"
PUMP_TOO = "Module B's coolant pump is safe to operate"
NOT_PUMP = "The coolant pump in module B is not safe to operate"
STORM = "The dust storm will reach the landing site on Friday"
TOMATOES = "The greenhouse tomatoes are ripe"
ASK_PUMP = "Is the coolant pump in module B safe?"

# The collective behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def ana(trio, home):
    """A reviewer, ana, whose verdicts all three agents honour."""
    made = reviewer_keys.init(Home.at(home), "ana")
    for agent in trio.values():
        agent.add_reviewer("ana", made["public_key"])
    return made


def peer_report(result: dict, peer: str) -> dict:
    (report,) = [p for p in result["peers"] if p["peer"] == peer]
    return report


def links(agent: Agent, source: str, target: str, kind: str) -> list[dict]:
    return agent.repo.select("skip_links", {"source_id": source, "target_id": target, "link_type": kind})


def open_cases(agent: Agent) -> list[dict]:
    return sorted(({k: v for k, v in c.items() if k != "resolution"}
                   for c in agent.cases() if c["status"] != "resolved"), key=lambda c: c["id"])


def state(agent: Agent) -> dict:
    """What 'nothing written' compares: every branch head and a clean working set."""
    return {"branches": agent.repo.branches(), "status": agent.repo.query("SELECT * FROM dolt_status")}


def sync_round(agents: dict[str, Agent]) -> None:
    for agent in agents.values():
        agent.pull()
        agent.push()


# --- the story ------------------------------------------------------------------------
def test_agreement_contradiction_partial_and_resolution(trio, cmem, ana):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    storm = e1.store(STORM).memory
    pump_too = e2.store(PUMP_TOO).memory
    tomatoes = e2.store(TOMATOES).memory
    not_pump = m1.store(NOT_PUMP).memory
    stored = cmem("store", STORM, "--stance", "uncertain", "--agent", "mars-1", "--json")
    assert stored.exit_code == 0, stored.output
    storm_m = m1.get(json.loads(stored.stdout)["id"])
    assert storm_m.phase == pytest.approx(math.pi / 2) and storm.phase == 0.0
    for agent in trio.values():
        agent.push()

    # recall before: earth-1 knows only its own mind
    before = e1.recall(ASK_PUMP, k=5)
    assert before[0].memory.id == pump.id and {h.memory.origin_agent for h in before} == {"earth-1"}
    amplitude_before = e1.get(pump.id).amplitude

    # an agreement merges: absorbed copy, consensus link, merge history, amplitude up
    result = e1.pull(peers=["earth-2"])
    report = peer_report(result, "earth-2")
    assert report["status"] == "merged" and report["refused"] == {}
    assert report["summary"]["constructive"] == 1 and report["summary"]["independent"] == 1
    assert set(report["seconds"]) == {"fetch", "diff", "verify", "classify", "apply"}
    copy = e1.get(pump_too.id)
    assert copy.absorbed_into == pump.id and not copy.disputed
    assert links(e1, pump_too.id, pump.id, "consensus")
    absorber = e1.get(pump.id)
    (record,) = absorber.merge_history
    assert record["source_id"] == pump_too.id and record["source_agent"] == "earth-2"
    assert record["type"] == wave.CONSTRUCTIVE and record["amplitude_before"] == pytest.approx(amplitude_before)
    assert absorber.amplitude > amplitude_before and absorber.amplitude == pytest.approx(record["amplitude_after"])
    assert e1.get(tomatoes.id).absorbed_into is None
    ledger = e1.trust_ledger("earth-2")
    assert [ev["reason"] for ev in ledger["events"]] == ["corroborated"] and ledger["trust"] == pytest.approx(0.52)
    after_agreement = e1.recall(ASK_PUMP, k=5)
    assert after_agreement[0].memory.id == pump.id
    assert pump_too.id not in {h.memory.id for h in after_agreement}  # recall shows the absorber, not both
    assert after_agreement[0].score > before[0].score

    # a contradiction lands in quarantine; a half-sure report is linked as a partial agreement
    result = e1.pull(peers=["mars-1"])
    report = peer_report(result, "mars-1")
    assert report["summary"]["destructive"] == 1 and report["summary"]["partial"] == 1, report["summary"]
    case_id = quarantine.case_id(pump.id, not_pump.id)
    assert report["summary"]["cases"] == [case_id]
    assert result["quarantine"]["pushed"] is True
    assert e1.get(pump.id).disputed and e1.get(not_pump.id).disputed
    assert links(e1, pump.id, not_pump.id, "disputes") and links(e1, not_pump.id, pump.id, "disputes")
    (partial,) = links(e1, storm_m.id, storm.id, "partial_agreement")
    assert partial["weight"] == pytest.approx(0.0, abs=1e-6)  # cos(pi/2)
    assert not e1.get(storm.id).disputed and not e1.get(storm_m.id).disputed
    (case,) = e1.cases()
    assert case["id"] == case_id and case["status"] == "pending" and case["dispute_count"] == 1
    assert {case["agent_a"], case["agent_b"]} == {"earth-1", "mars-1"}
    assert [ev["reason"] for ev in e1.trust_ledger("mars-1")["events"]] == ["quarantined"]
    hits = {h.memory.id: h for h in e1.recall(ASK_PUMP, k=5)}
    assert hits[pump.id].memory.disputed and hits[not_pump.id].memory.disputed

    # everyone pulls everyone, twice: the same open cases everywhere
    sync_round(trio)
    sync_round(trio)
    cases = open_cases(e1)
    assert {c["id"] for c in cases} == {case_id, quarantine.case_id(pump_too.id, not_pump.id)}
    assert open_cases(e2) == cases and open_cases(m1) == cases
    (seen_by_mars,) = [c for c in cases if c["id"] == case_id]
    assert seen_by_mars["dispute_count"] == 2  # opened by earth-1, met again by mars-1: the larger count

    # a person resolves it through the CLI: earth-1's memory is kept
    keep = "a" if case["memory_id_a"] == pump.id else "b"
    head = e1.repo.head(e1.branch)
    resolved = cmem("quarantine", "resolve", case_id, "--keep", keep, "--note", "checked on site",
                    "--by", "ana", "--agent", "earth-1", "--json")
    assert resolved.exit_code == 0, resolved.output
    verdict = json.loads(resolved.stdout)
    assert verdict["status"] == "resolved" and verdict["resolution"]["keep"] == keep
    assert verdict["resolution"]["by"] == "ana" and verdict["quarantine"]["pushed"] is True
    assert e1.repo.head(e1.branch) == verdict["commit"] != head
    assert not e1.get(pump.id).disputed and e1.get(not_pump.id).disputed
    assert [ev["reason"] for ev in e1.trust_ledger("mars-1")["events"]][-1] == "verdict_against"
    assert e1.trust_scores()["earth-1"] == 1.0 and not e1.repo.select("trust_events", {"agent_id": "earth-1"})

    # resolving again, or with a choice that does not exist: exit 2, nothing written
    for args in (["--keep", keep], ["--keep", "neither"]):
        snapshot = state(e1)
        again = cmem("quarantine", "resolve", case_id, *args, "--note", "again", "--agent", "earth-1")
        assert again.exit_code == 2 and again.stderr.count("\n") == 1, again.output
        assert again.stderr.startswith("Error: dispute: " if args[1] == keep else "Error: keep: ")
        assert state(e1) == snapshot

    # the others see the verdict after a pull, with its flags and trust
    for agent in (m1, e2):
        agent.pull()
        (theirs,) = [c for c in agent.cases() if c["id"] == case_id]
        assert theirs["status"] == "resolved" and theirs["resolution"]["keep"] == keep
        assert not agent.get(pump.id).disputed and agent.get(not_pump.id).disputed
    assert [ev["reason"] for ev in m1.trust_ledger("earth-1")["events"]][-1] == "verdict_for"
    assert not m1.repo.select("trust_events", {"agent_id": "mars-1"})  # never about itself
    assert [ev["reason"] for ev in e2.trust_ledger("mars-1")["events"]][-1] == "verdict_against"
    sync_round(trio)
    # the other case of the same disagreement (earth-2's copy against mars-1) went with it
    assert open_cases(e1) == open_cases(e2) == open_cases(m1) == []

    # recall after: the kept memory leads, undisputed; the refuted one only when asked, marked
    after = {h.memory.id: h for h in e1.recall(ASK_PUMP, k=5)}
    assert next(iter(after)) == pump.id and not after[pump.id].memory.disputed
    assert not_pump.id not in after
    marked = {h.memory.id: h for h in e1.recall(ASK_PUMP, k=5, include_refuted=True)}
    assert marked[not_pump.id].memory.refuted_by == verdict["dispute"]


def test_one_dispute_opened_from_both_sides_is_one_case(trio, monkeypatch):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    not_pump = m1.store(NOT_PUMP).memory
    e1.push()
    m1.push()
    # both pull at the same time: each opens the case before either has shared it
    reports = {}
    for agent, peer in ((e1, "mars-1"), (m1, "earth-1")):
        with monkeypatch.context() as m:
            m.setattr(agent.quarantine, "share", lambda remote: {"pushed": False})  # shared below, not yet
            reports[agent.agent_id] = peer_report(agent.pull(peers=[peer]), peer)
    case_id = quarantine.case_id(pump.id, not_pump.id)
    assert reports["earth-1"]["summary"]["cases"] == reports["mars-1"]["summary"]["cases"] == [case_id]
    # concurrent pushes of the quarantine branch: the second is behind, rebuilds on the first, converges
    assert e1.quarantine.share("origin")["pushed"]
    second = m1.quarantine.share("origin")
    assert second["cases"] == 1 and not second["pushed"]  # nothing the commons lacks: the first opening stands there
    for agent in (e1, m1):
        agent.pull()
    assert [c["id"] for c in e1.cases()] == [c["id"] for c in m1.cases()] == [case_id]
    assert open_cases(e1) == open_cases(m1)
    e1.repo.fetch("origin")
    shared = e1.repo.select("quarantine", as_of=f"origin/{QUARANTINE_BRANCH}")
    assert [c["id"] for c in shared] == [case_id] and shared[0]["dispute_count"] == 1
    # the disputed pair travels with its case, and nothing else does
    pair = e1.repo.select("memories", columns=("id", "content"), as_of=f"origin/{QUARANTINE_BRANCH}")
    assert {r["id"]: r["content"] for r in pair} == {pump.id: PUMP, not_pump.id: NOT_PUMP}


def shared_pair_rows(agent: Agent) -> dict[str, dict]:
    agent.repo.fetch("origin")
    return {r["id"]: r for r in agent.repo.select("memories", as_of=f"origin/{QUARANTINE_BRANCH}")}


def test_a_share_rewrites_no_disputed_memory_the_branch_holds_as_claimed(trio):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    not_pump = m1.store(NOT_PUMP).memory
    e1.push()
    m1.push()
    e1.pull(peers=["mars-1"])  # opens the case and shares it with the pair
    first = shared_pair_rows(e1)
    m1.pull(peers=["earth-1"])  # counts the same dispute: the case changes, the pair's claims do not
    m1.repo.fetch("origin")
    (case,) = m1.repo.select("quarantine", as_of=f"origin/{QUARANTINE_BRANCH}")
    assert case["dispute_count"] == 2
    # mars-1's copies differ in its own state (times, amplitude): the shared rows stay e1's
    assert shared_pair_rows(m1) == first and set(first) == {pump.id, not_pump.id}
    # a row someone altered on the branch is written again by the next share that names its case
    e2.repo.fetch("origin")
    e2.repo.create_branch_at(QUARANTINE_BRANCH, f"origin/{QUARANTINE_BRANCH}")
    with e2.repo.on_branch(QUARANTINE_BRANCH), e2.repo.transaction():
        e2.repo.update("memories", {"content": "The coolant pump in module B was removed"}, {"id": pump.id})
        e2.repo.commit("alter a disputed memory", author="earth-2")
    e2.repo.push("origin", QUARANTINE_BRANCH)
    e2.pull()  # meets the pair and counts the case: shares it
    assert shared_pair_rows(e2)[pump.id]["content"] == PUMP


def test_an_agent_meeting_a_resolved_pair_later_follows_the_verdict(trio, ana):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    not_pump = m1.store(NOT_PUMP).memory
    m1.push()
    e1.pull()
    case_id = quarantine.case_id(pump.id, not_pump.id)
    keep = "a" if min(pump.id, not_pump.id) == pump.id else "b"
    e1.resolve_dispute(case_id, keep=keep, by="ana")
    e1.push()
    # earth-2 never held either memory: it takes the verdict first, then meets the pair
    result = e2.pull()
    assert peer_report(result, "mars-1")["summary"]["cases"] == []
    (case,) = e2.cases()
    assert case["status"] == "resolved" and case["dispute_count"] == 1
    assert not e2.get(pump.id).disputed and e2.get(not_pump.id).disputed
    assert e2.get(not_pump.id).amplitude == pytest.approx(not_pump.amplitude)  # no dispute penalty either
    # no quarantine penalty; the verdict moves its trust once, as on the agents that met the pair first
    assert [ev["reason"] for ev in e2.trust_ledger("mars-1")["events"]] == ["verdict_against"]
    assert [ev["reason"] for ev in e2.trust_ledger("earth-1")["events"]] == ["verdict_for"]


def test_absorbers_keep_valid_signatures_for_their_peers(trio):
    """A constructive merge blends the absorber's vector; its peers must still accept it."""
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    e2.store(PUMP_TOO)
    e2.push()
    e1.pull()  # earth-1's pump memory absorbs earth-2's
    assert e1.get(pump.id).merge_history
    e1.push()
    report = peer_report(m1.pull(peers=["earth-1"]), "earth-1")
    assert report["refused"] == {}
    assert pump.id in {r["id"] for r in m1.repo.select("memories")}


def test_agents_that_learned_nothing_new_stop_moving_each_others_heads(trio):
    trio["earth-1"].store("The greenhouse lights run twelve hours a day.")
    trio["mars-1"].store("Dust storm expected over the landing site within three days.")
    for agent in trio.values():
        agent.push()
    for _ in range(3):  # enough rounds for every copy to have travelled
        sync_round(trio)
    heads = {name: agent.repo.head(agent.branch) for name, agent in trio.items()}
    sync_round(trio)  # nothing new anywhere: a pull that takes nothing makes no commit
    assert {name: agent.repo.head(agent.branch) for name, agent in trio.items()} == heads
    report = trio["earth-1"].pull()
    assert {p["status"] for p in report["peers"]} == {"unchanged"}
