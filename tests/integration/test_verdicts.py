"""Verdicts that change what every agent believes (DESIGN.md, Verdicts): disputes grouped
by claim, keep a / keep b / both / merged on every copy, applied once, wherever the
verdict and the memories arrive first, and followed by later merges."""

from __future__ import annotations

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home

PUMP = "The coolant pump in module B is safe to operate"
PUMP_TOO = "Module B's coolant pump is safe to operate"
NOT_PUMP = "The coolant pump in module B is not safe to operate"
ASK_PUMP = "Is the coolant pump in module B safe?"

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def ana(trio, home):
    made = reviewer_keys.init(Home.at(home), "ana")
    for agent in trio.values():
        agent.add_reviewer("ana", made["public_key"])
    return made


def sync_round(agents: dict[str, Agent]) -> None:
    for agent in agents.values():
        agent.pull()
        agent.push()


def stored(trio):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    return e1.store(PUMP).memory, e2.store(PUMP_TOO).memory, m1.store(NOT_PUMP).memory


def side_of(dispute: dict, memory_id: str) -> str:
    for side in ("a", "b"):
        if dispute[side]["memory"] == memory_id or memory_id in {c["memory"] for c in dispute[side]["copies"]}:
            return side
    raise AssertionError(f"{memory_id} on neither side of {dispute['dispute']}")


def test_one_dispute_per_claim_the_same_on_every_agent(trio, ana):
    pump, pump_too, not_pump = stored(trio)
    for agent in trio.values():
        agent.push()
    sync_round(trio)
    sync_round(trio)
    seen = {name: agent.disputes() for name, agent in trio.items()}
    assert [len(d) for d in seen.values()] == [1, 1, 1], seen
    ids = {name: (d[0]["dispute"], tuple(sorted(d[0]["cases"]))) for name, d in seen.items()}
    assert len(set(ids.values())) == 1, ids
    dispute = seen["earth-1"][0]
    assert dispute["status"] in ("pending", "escalated") and dispute["case_count"] == 2
    assert dispute["agents"] == ["earth-1", "earth-2", "mars-1"]
    assert side_of(dispute, pump.id) == side_of(dispute, pump_too.id) != side_of(dispute, not_pump.id)


def test_keep_refutes_the_losing_side_on_every_copy(trio, ana):
    pump, pump_too, not_pump = stored(trio)
    for agent in trio.values():
        agent.push()
    sync_round(trio)
    sync_round(trio)
    m1 = trio["mars-1"]
    (dispute,) = m1.disputes("open")
    keep = side_of(dispute, not_pump.id)
    amplitude_before = m1.get(not_pump.id).amplitude
    resolved = m1.resolve_dispute(dispute["dispute"], keep=keep, note="cracked impeller", by="ana")
    assert resolved["status"] == "resolved" and resolved["resolution"]["keep"] == keep
    assert resolved["quarantine"]["pushed"] is True
    assert m1.get(not_pump.id).amplitude > amplitude_before and not m1.get(not_pump.id).disputed
    sync_round(trio)
    for agent in trio.values():
        assert agent.disputes("open") == []
        (seen,) = agent.disputes()
        assert seen["dispute"] == dispute["dispute"] and seen["status"] == "resolved"
        for loser in (pump.id, pump_too.id):
            row = agent.get(loser)
            assert row.refuted_by == dispute["dispute"] and row.valid_until == resolved["resolution"]["at"]
        assert agent.get(not_pump.id).refuted_by is None and not agent.get(not_pump.id).disputed


def resolved_for_mars(trio, *, sync: bool = True) -> dict:
    """earth-1 and mars-1 dispute the pump; ana sides with mars-1 on mars-1."""
    e1, m1 = trio["earth-1"], trio["mars-1"]
    e1.push()
    m1.push()
    e1.pull()
    e1.push()
    m1.pull()
    (dispute,) = m1.disputes("open")
    keep = "a" if dispute["a"]["origin_agent"] == "mars-1" else "b"
    return m1.resolve_dispute(dispute["dispute"], keep=keep, note="cracked impeller", by="ana")


def test_verdict_before_its_memories_and_refuted_on_arrival(trio, ana):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump, not_pump = e1.store(PUMP).memory, m1.store(NOT_PUMP).memory
    resolved = resolved_for_mars(trio)
    # earth-2 meets the verdict first, then the memories it names, then holds a copy of its own
    pump_too = e2.store(PUMP_TOO).memory
    result = e2.pull()
    assert e2.get(pump.id).refuted_by == resolved["dispute"]
    assert e2.get(pump_too.id).refuted_by == resolved["dispute"]  # its own copy of the refuted claim
    assert e2.get(not_pump.id).refuted_by is None
    assert e2.disputes("open") == [] and all(not p["summary"]["cases"] for p in result["peers"])
    # a claim on the refuted side arriving later is refuted on arrival, not disputed again
    e2.push()
    for agent in (e1, m1):
        agent.pull()
        assert agent.get(pump_too.id).refuted_by == resolved["dispute"]
        assert agent.disputes("open") == []
    again = e1.store("The coolant pump of module B is safe to operate.").memory
    e1.push()
    m1.pull()
    assert m1.get(again.id).refuted_by == resolved["dispute"] and m1.disputes("open") == []


def test_applying_a_verdict_twice_changes_nothing(trio, ana):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    e1.store(PUMP)
    m1.store(NOT_PUMP)
    resolved = resolved_for_mars(trio)
    e1.pull()
    rows = e1.repo.select("memories", order_by="id")
    trust = e1.trust_ledger("mars-1")
    (case,) = [c for c in e1.tables.cases.all() if c["id"] in resolved["cases"]]
    with e1.repo.transaction():
        e1.quarantine.apply_authorised([case])  # already applied: skipped
    e1.pull()
    m1.push()
    e1.pull()
    assert e1.repo.select("memories", order_by="id") == rows and e1.trust_ledger("mars-1") == trust
