"""The shared quarantine branch is signed: a hostile peer that can push to the commons
cannot move anyone's trust or flags with cases or verdicts it made up, bent or copied.

earth-1 says the coolant pump is safe, mars-1 (the attacker) says it is not, and
earth-2 (the observer, who honours the reviewer ana) opens the case. mars-1 then
writes to collective/quarantine directly, as the probe did; earth-2's next pull
must ignore the bad rows, name them, exit 1, and leave trust and flags as they were.
"""

from __future__ import annotations

import json

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.identity import Identity
from collective.model import Case
from collective.model.refs import QUARANTINE_BRANCH, tracking
from collective.quarantine import cases as quarantine
from collective.quarantine import signing

PUMP = "The coolant pump in module B is safe to operate"
NOT_PUMP = "The coolant pump in module B is not safe to operate"
TOMATOES = "The greenhouse tomatoes are ripe"
NOT_TOMATOES = "The greenhouse tomatoes are not ripe"

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def ana(home):
    made = reviewer_keys.init(Home.at(home), "ana")
    return reviewer_keys.load(Home.at(home), "ana"), made["public_key"]


@pytest.fixture
def opened(trio, ana):
    """The genuine case between earth-1's and mars-1's pump memories, as earth-2 opened it."""
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    e2.add_reviewer("ana", ana[1])
    pump, not_pump = e1.store(PUMP).memory, m1.store(NOT_PUMP).memory
    tomatoes, not_tomatoes = e1.store(TOMATOES).memory, m1.store(NOT_TOMATOES).memory
    e1.push()
    m1.push()
    e2.pull()
    case_id = quarantine.case_id(pump.id, not_pump.id)
    assert {c["id"] for c in e2.cases()} >= {case_id}
    return {"case": case_id, "pump": pump, "not_pump": not_pump, "tomatoes": tomatoes, "not_tomatoes": not_tomatoes}


def what_counts(agent: Agent, memories: list) -> dict:
    """Trust, the ledger, the flags and the cases: what a forged row must not change."""
    return {"trust": agent.trust_scores(), "ledger": len(agent.repo.select("trust_events")),
            "flags": {m.id: agent.get(m.id).disputed for m in memories},
            "cases": {c["id"]: (c["status"], c["dispute_count"], c["applied"]) for c in agent.cases()}}


def push_onto_commons(attacker: Agent, rows: list[dict]) -> None:
    """Write case rows on collective/quarantine and push them, as any peer with write access can."""
    attacker.repo.fetch("origin")
    attacker.repo.create_branch_at(QUARANTINE_BRANCH, tracking("origin", QUARANTINE_BRANCH))
    with attacker.repo.on_branch(QUARANTINE_BRANCH), attacker.repo.transaction():
        attacker.tables.cases.write([Case.from_row(r) for r in rows])
        attacker.repo.commit("quarantine: resolve", author=attacker.agent_id)
    attacker.repo.push("origin", QUARANTINE_BRANCH)


def shared_case(agent: Agent, case_id: str) -> dict:
    """The case's row as the commons holds it."""
    agent.repo.fetch("origin")
    return agent.tables.cases.by_id(as_of=tracking("origin", QUARANTINE_BRANCH))[case_id].to_row()


def verdict(case: dict, reviewer: Identity, *, keep: str, by: str, at: str = "2026-12-01T00:00:00.000000Z",
            revision: int = 0) -> dict:
    document = signing.verdict_document(Case.from_row(case), keep=keep, note="", by=by, reviewer_key=reviewer.public_key,
                                        agent="mars-1", at=at, revision=revision)
    return {"status": "resolved", "resolution": document, "resolved_at": at,
            "verdict_signature": reviewer.sign(document.encode())}


def keep_side(case: dict, memory) -> str:
    return "a" if case["memory_id_a"] == memory.id else "b"


def pull_refusing(cmem, agent: str, reason: str, case_id: str) -> dict:
    result = cmem("pull", "--agent", agent, "--json")
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: refused data from {QUARANTINE_BRANCH} ({reason}); --allow-refused exits 0\n"
    report = json.loads(result.stdout)
    assert report["refused"] == {QUARANTINE_BRANCH: {reason: [case_id]}}
    return report


def test_a_forged_case_is_ignored_and_reported(trio, opened, cmem):
    e2, m1 = trio["earth-2"], trio["mars-1"]
    memories = [opened[k] for k in ("pump", "not_pump", "tomatoes", "not_tomatoes")]
    before = what_counts(e2, memories)
    # a dispute nobody opened: earth-1's pump against mars-1's tomatoes, decided for mars-1
    forged_id = quarantine.case_id(opened["pump"].id, opened["not_tomatoes"].id)
    a, b = sorted([opened["pump"], opened["not_tomatoes"]], key=lambda m: m.id)
    row = {"id": forged_id, "memory_id_a": a.id, "memory_id_b": b.id, "agent_a": a.origin_agent,
           "agent_b": b.origin_agent, "similarity": 0.97, "phase_diff": 3.14, "dispute_count": 1,
           "status": "pending", "resolution": None, "created_at": "2026-12-01T00:00:00.000000Z",
           "resolved_at": None, "verdict_signature": None}
    row.update(opened_by="earth-1", counted_by="earth-1")  # claims earth-1 opened it; mars-1 signs
    row["opening_signature"] = m1.identity.sign(signing.opening_claim(Case.from_row(row)))
    row["count_signature"] = m1.identity.sign(signing.count_claim(Case.from_row(row)))
    row.update(verdict(row, m1.identity, keep=keep_side(row, opened["not_tomatoes"]), by="ops-lead"))
    push_onto_commons(m1, [row])

    pull_refusing(cmem, "earth-2", "forged_case", forged_id)
    assert what_counts(e2, memories) == before and forged_id not in before["cases"]
    # unsigned, as in the probe: ignored the same way
    unsigned = {**row, "opening_signature": None, "count_signature": None, "opened_by": None, "counted_by": None}
    push_onto_commons(m1, [unsigned])
    pull_refusing(cmem, "earth-2", "unsigned_case", forged_id)
    assert what_counts(e2, memories) == before
    assert cmem("pull", "--agent", "earth-2", "--allow-refused").exit_code == 0


def test_a_forged_verdict_is_ignored_and_reported(trio, opened, ana, cmem):
    e2, m1 = trio["earth-2"], trio["mars-1"]
    memories = [opened["pump"], opened["not_pump"]]
    before = what_counts(e2, memories)
    case = shared_case(m1, opened["case"])
    # names ana, the reviewer earth-2 honours, but mars-1 signs it
    forged = {**case, **verdict(case, m1.identity, keep=keep_side(case, opened["not_pump"]), by="ana")}
    forged["resolution"] = forged["resolution"].replace(m1.identity.public_key, ana[1])
    push_onto_commons(m1, [forged])
    pull_refusing(cmem, "earth-2", "forged_verdict", opened["case"])
    assert what_counts(e2, memories) == before
    # the dispute itself stays open, and a later push puts the genuine case back on the commons
    assert [c["status"] for c in e2.cases() if c["id"] == opened["case"]] != ["resolved"]
    e2.push()
    assert shared_case(e2, opened["case"])["status"] != "resolved"


def test_a_tampered_count_is_ignored_and_reported(trio, opened, cmem):
    e2, m1 = trio["earth-2"], trio["mars-1"]
    memories = [opened["pump"], opened["not_pump"]]
    before = what_counts(e2, memories)
    case = shared_case(m1, opened["case"])
    push_onto_commons(m1, [{**case, "dispute_count": 9, "status": "escalated"}])
    pull_refusing(cmem, "earth-2", "tampered_count", opened["case"])
    assert what_counts(e2, memories) == before


def test_a_verdict_of_an_unauthorised_reviewer_is_kept_not_applied(trio, opened, cmem):
    e2, m1 = trio["earth-2"], trio["mars-1"]
    memories = [opened["pump"], opened["not_pump"]]
    before = what_counts(e2, memories)
    case = shared_case(m1, opened["case"])
    mallory = reviewer_keys.init(e2.home, "mallory")
    signed = verdict(case, reviewer_keys.load(e2.home, "mallory"), keep=keep_side(case, opened["not_pump"]),
                     by="ops-lead")
    push_onto_commons(m1, [{**case, **signed}])

    result = cmem("pull", "--agent", "earth-2", "--json")
    assert result.exit_code == 0, result.output  # a valid signature: kept, not refused
    after = what_counts(e2, memories)
    assert after["trust"] == before["trust"] and after["flags"] == before["flags"]
    assert after["ledger"] == before["ledger"]
    assert after["cases"][opened["case"]] == ("resolved", case["dispute_count"], False)
    listed = cmem("quarantine", "list", "--agent", "earth-2")
    assert "awaiting an authorised reviewer" in listed.stdout
    status = cmem("status", "--agent", "earth-2")
    assert "1 awaiting an authorised reviewer" in status.stdout
    # once its operator authorises the reviewer, the kept verdict takes effect, once
    added = cmem("reviewers", "add", "mallory", mallory["public_key"], "--agent", "earth-2", "--json")
    assert added.exit_code == 0 and json.loads(added.stdout)["applied"] == [opened["case"]]
    assert e2.get(opened["pump"].id).disputed and not e2.get(opened["not_pump"].id).disputed
    assert e2.trust_scores()["mars-1"] > before["trust"]["mars-1"]
    assert "awaiting" not in cmem("quarantine", "list", "--agent", "earth-2").stdout


def test_a_replayed_verdict_is_ignored_and_reported(trio, opened, ana, cmem):
    e2, m1 = trio["earth-2"], trio["mars-1"]
    memories = [opened["pump"], opened["not_pump"]]
    before = what_counts(e2, memories)
    case = shared_case(m1, opened["case"])
    # ana's genuine verdict on another dispute (tomatoes), copied onto the pump case
    other = {**case, "id": quarantine.case_id(opened["tomatoes"].id, opened["not_tomatoes"].id),
             "memory_id_a": min(opened["tomatoes"].id, opened["not_tomatoes"].id),
             "memory_id_b": max(opened["tomatoes"].id, opened["not_tomatoes"].id)}
    genuine = verdict(other, ana[0], keep="b", by="ana")
    push_onto_commons(m1, [{**case, **genuine}])
    pull_refusing(cmem, "earth-2", "replayed_verdict", opened["case"])
    assert what_counts(e2, memories) == before


def test_a_signed_verdict_of_no_known_kind_is_ignored_and_reported(trio, opened, ana, cmem):
    """Verdict kinds are one enum (Keep), matched exhaustively: a reviewer's signed verdict
    whose keep names none of them is refused at the pull, not a crash where it takes effect."""
    e2, m1 = trio["earth-2"], trio["mars-1"]
    memories = [opened["pump"], opened["not_pump"]]
    before = what_counts(e2, memories)
    case = shared_case(m1, opened["case"])
    push_onto_commons(m1, [{**case, **verdict(case, ana[0], keep="neither", by="ana")}])
    pull_refusing(cmem, "earth-2", "malformed_verdict", opened["case"])
    assert what_counts(e2, memories) == before


def test_cases_a_pull_opens_are_signed_by_the_agent(trio, opened, cmem):
    e2, m1 = trio["earth-2"], trio["mars-1"]
    # earth-2 never pushed its branch: its key travels with the cases it shares
    assert "earth-2/working" not in e2.repo.fetch("origin")
    pulled = cmem("pull", "--agent", "mars-1")
    assert pulled.exit_code == 0, pulled.output
    assert opened["case"] in {c["id"] for c in m1.cases()}
    (case,) = [c for c in e2.cases() if c["id"] == opened["case"]]
    assert case["opened_by"] == case["counted_by"] == "earth-2"
    checked = signing.check_cases([Case.from_row(shared_case(e2, opened["case"]))],
                                  lambda agent: [e2.tables.agents.public_key(agent)], threshold=3)
    assert checked.refused == {} and len(checked.kept) == 1


def test_an_agent_from_before_signed_cases_still_shares_them(trio, cmem):
    """An agent made before schema 3 has it on its working branch only (migrations run on
    the branch it opens): the shared branch, made from its main, is migrated first."""
    e1, m1 = trio["earth-1"], trio["mars-1"]
    with e1.repo.on_branch("main"), e1.repo.transaction():
        for column in ("opened_by", "opening_signature", "counted_by", "count_signature", "verdict_signature"):
            e1.repo.execute(f"ALTER TABLE quarantine DROP COLUMN {column}")
        for table in ("reviewers", "applied_verdicts", "endorsements", "key_rotations", "key_changes"):
            e1.repo.execute(f"DROP TABLE {table}")
        e1.repo.delete("schema_version", {"version": 3})
        e1.repo.commit("schema as before version 3", author="earth-1")
    pump, not_pump = e1.store(PUMP).memory, m1.store(NOT_PUMP).memory
    m1.push()
    pulled = cmem("pull", "--agent", "earth-1", "--json")
    assert pulled.exit_code == 0, pulled.output
    assert json.loads(pulled.stdout)["quarantine"]["pushed"]
    assert cmem("pull", "--agent", "mars-1").exit_code == 0
    assert [c["id"] for c in m1.cases()] == [quarantine.case_id(pump.id, not_pump.id)]


def test_a_verdict_applied_here_is_withdrawn_when_another_stands_on_its_case(trio, opened, ana, cmem):
    """Found by the simulator (real-embedder seed 607): what a holder applies is the verdict
    its case holds, or none. A verdict of a later revision by a reviewer not honoured here
    displaces the applied one in the join; its refutation was kept here and not on holders
    that met the other one first."""
    e2, m1 = trio["earth-2"], trio["mars-1"]
    case = shared_case(m1, opened["case"])
    honoured = verdict(case, ana[0], keep=keep_side(case, opened["not_pump"]), by="ana")
    push_onto_commons(m1, [{**case, **honoured}])
    assert cmem("pull", "--agent", "earth-2", "--json").exit_code == 0
    assert e2.get(opened["pump"].id).refuted_by == opened["case"]
    mallory = reviewer_keys.init(e2.home, "mallory")
    earlier = verdict(case, reviewer_keys.load(e2.home, "mallory"), keep=keep_side(case, opened["pump"]),
                      by="mallory", at="2026-11-01T00:00:00.000000Z", revision=1)
    push_onto_commons(m1, [{**case, **earlier}])
    assert cmem("pull", "--agent", "earth-2", "--json").exit_code == 0
    assert e2.get(opened["pump"].id).refuted_by is None and e2.get(opened["not_pump"].id).refuted_by is None
    (shown,) = [c for c in e2.cases() if c["id"] == opened["case"]]
    assert shown["status"] == "resolved" and not shown["applied"] and shown["awaiting"]
    # its reviewer honoured, the verdict standing takes effect
    assert cmem("reviewers", "add", "mallory", mallory["public_key"], "--agent", "earth-2").exit_code == 0
    assert e2.get(opened["not_pump"].id).refuted_by == opened["case"] and e2.get(opened["pump"].id).refuted_by is None
