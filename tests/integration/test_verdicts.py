"""Verdicts that change what every agent believes (DESIGN.md, Verdicts): disputes grouped
by claim, keep a / keep b / both / merged on every copy, applied once, wherever the
verdict and the memories arrive first, and followed by later merges."""

from __future__ import annotations

import json
import re

import pytest

from collective.errors import BadInput
from collective.reports import DecidedDispute, DisputeReport, mismatches

from tests.integration.test_exchange import ASK_PUMP, NOT_PUMP, PUMP, PUMP_TOO, ana, sync_round  # noqa: F401

pytestmark = pytest.mark.usefixtures("engine")


def stored(trio):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    return e1.store(PUMP).memory, e2.store(PUMP_TOO).memory, m1.store(NOT_PUMP).memory


def side_of(dispute: dict, memory_id: str) -> str:
    for side in ("a", "b"):
        if dispute[side]["memory"] == memory_id or memory_id in {c["memory"] for c in dispute[side]["copies"]}:
            return side
    raise AssertionError(f"{memory_id} on neither side of {dispute['dispute']}")


def disputed_trio(trio) -> tuple:
    """Two sync rounds after earth-1, earth-2 (agreeing) and mars-1 (contradicting) stored the pump."""
    pump, pump_too, not_pump = stored(trio)
    for agent in trio.values():
        agent.push()
    sync_round(trio)
    sync_round(trio)
    return pump, pump_too, not_pump


def test_one_dispute_per_claim_the_same_on_every_agent(trio, ana):
    pump, pump_too, not_pump = disputed_trio(trio)
    seen = {name: agent.disputes() for name, agent in trio.items()}
    assert [len(d) for d in seen.values()] == [1, 1, 1], seen
    ids = {name: (d[0]["dispute"], tuple(sorted(d[0]["cases"]))) for name, d in seen.items()}
    assert len(set(ids.values())) == 1, ids
    dispute = seen["earth-1"][0]
    assert dispute["status"] in ("pending", "escalated") and dispute["case_count"] == 2
    assert dispute["agents"] == ["earth-1", "earth-2", "mars-1"]
    # the judge's reason for the two claims, in their own words
    assert re.fullmatch(r"a says .+ safe to operate; b says .+ safe to operate\.", dispute["reason"]), dispute["reason"]
    assert "not safe" in dispute["reason"]
    assert side_of(dispute, pump.id) == side_of(dispute, pump_too.id) != side_of(dispute, not_pump.id)


def test_keep_refutes_the_losing_side_on_every_copy(trio, ana):
    pump, pump_too, not_pump = disputed_trio(trio)
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
    (case,) = [c for c in e1.tables.cases.all() if c.id in resolved["cases"]]
    with e1.repo.transaction():
        e1.quarantine.apply_authorised([case])  # already applied: skipped
    e1.pull()
    m1.push()
    e1.pull()
    assert e1.repo.select("memories", order_by="id") == rows and e1.trust_ledger("mars-1") == trust


@pytest.mark.parametrize("keep", ["mars", "earth", "both", "merged"])
def test_the_effects_of_each_verdict_on_every_copy(trio, ana, keep):
    pump, pump_too, not_pump = disputed_trio(trio)
    m1 = trio["mars-1"]
    (dispute,) = m1.disputes("open")
    side = {"mars": side_of(dispute, not_pump.id), "earth": side_of(dispute, pump.id)}.get(keep, keep)
    text = "The coolant pump in module B is safe only after its impeller is replaced" if keep == "merged" else None
    resolved = m1.resolve_dispute(dispute["dispute"], keep=side, text=text, note="inspected", by="ana")
    sync_round(trio)
    earth_side, mars_side = (pump.id, pump_too.id), (not_pump.id,)
    refuted_by = resolved["resolution"]["memory"] if keep == "merged" else dispute["dispute"]
    losers = {"mars": earth_side, "earth": mars_side, "both": (), "merged": earth_side + mars_side}[keep]
    for name, agent in trio.items():
        assert agent.disputes("open") == [], name
        for memory_id in earth_side + mars_side:
            row = agent.get(memory_id)
            if memory_id in losers:
                assert row.refuted_by == refuted_by and row.valid_until == resolved["resolution"]["at"], name
            else:
                assert row.refuted_by is None and not row.disputed, (name, memory_id)
        hits = agent.recall(ASK_PUMP, k=5)
        assert not {h.memory.id for h in hits} & set(losers)
        marked = agent.recall(ASK_PUMP, k=5, include_refuted=True)
        shown = {h.memory.id for h in marked if h.memory.refuted_by}  # an absorbed copy shows as its absorber
        assert shown <= set(losers) and bool(shown) == bool(losers), name
        if keep == "both":
            a, b = dispute["a"]["memory"], dispute["b"]["memory"]
            assert agent.repo.select("skip_links", {"source_id": a, "target_id": b, "link_type": "partial_agreement"})
        if keep == "merged":
            made = agent.get(resolved["resolution"]["memory"])
            assert made.content == text and made.parents == [dispute["a"]["memory"], dispute["b"]["memory"]]
            assert made.refuted_by is None and hits[0].memory.id == made.id
    shown = m1.show(pump.id if losers else not_pump.id)
    assert shown["dispute"] == {"dispute": dispute["dispute"], "status": "resolved"}


def test_cases_opened_at_once_about_one_claim_group_alike_everywhere(trio, monkeypatch):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump, pump_too, not_pump = stored(trio)
    for agent in trio.values():
        agent.push()
    e1.pull(peers=["earth-2"])
    e2.pull(peers=["earth-1"])  # the earth agents agree: each holds the other's copy absorbed
    # both meet mars-1 at the same time, each opening its own case before either is shared
    for agent in (e1, e2):
        with monkeypatch.context() as m:
            m.setattr(agent.quarantine, "share", lambda remote: {"pushed": False})
            agent.pull(peers=["mars-1"])
    assert len(e1.disputes()) == len(e2.disputes()) == 1
    assert e1.disputes()[0]["dispute"] != e2.disputes()[0]["dispute"]
    sync_round(trio)
    sync_round(trio)
    seen = [agent.disputes() for agent in trio.values()]
    assert all(len(d) == 1 for d in seen), seen
    assert len({(d[0]["dispute"], tuple(sorted(d[0]["cases"])), d[0]["a"]["memory"]) for d in seen}) == 1
    assert seen[0][0]["dispute"] == min(seen[0][0]["cases"])


PUMP_C = "The coolant pump in module C is safe to operate."
PUMP_C_TOO = "The coolant pump in module C is safe to operate"
NOT_PUMP_C = "The coolant pump in module C is not safe to operate."
ASK_PUMP_C = "is the coolant pump safe?"


def test_the_demo_story_the_verdict_changes_what_all_three_recall(trio, ana):
    """As `make demo` tells it: a reviewer sides with mars-1; after one sync round every agent
    recalls "not safe" first, no pump dispute is open anywhere, and as of before the verdict
    earth-1 still answers "safe" first."""
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    e1.store(PUMP_C, importance=0.8)
    battery = e1.store("Rover 5 battery was replaced on Tuesday.", category="experience").memory
    e2.store(PUMP_C_TOO, importance=0.6)
    not_safe = m1.store(NOT_PUMP_C, importance=0.9).memory
    for _ in range(2):
        for agent in trio.values():
            agent.push()
        for agent in trio.values():
            agent.pull()
    assert e1.recall(ASK_PUMP_C, k=3)[0].memory.content == PUMP_C
    assert battery.id not in {h.memory.id for h in e1.recall(ASK_PUMP_C, k=5)}  # not about the pump
    before = {name: agent.log(n=1)[0].hash for name, agent in trio.items()}
    (dispute,) = e1.disputes("open")
    keep = "a" if dispute["a"]["origin_agent"] == "mars-1" else "b"
    e1.resolve_dispute(dispute["dispute"], keep=keep, note="cracked impeller", by="ana")
    for agent in trio.values():  # one sync round
        agent.pull()
        agent.push()
    for name, agent in trio.items():
        assert agent.recall(ASK_PUMP_C, k=3)[0].memory.id == not_safe.id, name
        assert [d for d in agent.disputes("open") if "pump" in d["a"]["content"] + d["b"]["content"]] == [], name
    assert e1.recall(ASK_PUMP_C, k=3, as_of=before["earth-1"])[0].memory.content == PUMP_C
    for agent in (e1, e2):  # one verdict, however many cases it resolved, moves trust once
        assert [e["reason"] for e in agent.trust_ledger("mars-1")["events"]].count("verdict_for") == 1


def test_bad_verdicts_are_one_line_exit_2_and_write_nothing(trio, ana, cmem):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    e1.store(PUMP)
    m1.store(NOT_PUMP)
    resolved = resolved_for_mars(trio)
    m1.store(PUMP_TOO)  # a change in the working set must survive a refused verdict untouched
    (other,) = [d for d in m1.disputes() if d["dispute"] == resolved["dispute"]]
    for args, field in ((["0123abcd", "--keep", "a"], "dispute"),
                        ([other["dispute"], "--keep", "a"], "dispute"),
                        ([other["cases"][0], "--keep", "b"], "dispute"),
                        ([other["dispute"], "--keep", "merged"], "text"),
                        ([other["dispute"], "--keep", "a", "--text", "x"], "text")):
        before = {"branches": m1.repo.branches(), "status": m1.repo.query("SELECT * FROM dolt_status")}
        result = cmem("quarantine", "resolve", *args, "--note", "n", "--by", "ana", "--agent", "mars-1")
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert result.stderr.startswith(f"Error: {field}: ") and result.stdout == ""
        assert {"branches": m1.repo.branches(), "status": m1.repo.query("SELECT * FROM dolt_status")} == before
    # a blank note, and an unknown remote, are said before anything is signed
    for args, field in ((["resolve", other["dispute"], "--keep", "a", "--note", "   "], "note"),
                        (["resolve", other["dispute"], "--keep", "a", "--note", "\u200b\u200b"], "note"),
                        (["resolve", other["dispute"], "--keep", "a", "--note", "y" * 40000], "note"),
                        (["reopen", resolved["dispute"], "--note", ""], "note"),
                        (["reopen", resolved["dispute"], "--note", "\x07\u200d"], "note"),
                        (["reopen", resolved["dispute"], "nosuchremote", "--note", "x"], "remote")):
        head = m1.repo.head()
        result = cmem("quarantine", *args, "--by", "ana", "--agent", "mars-1")
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert result.stderr.startswith(f"Error: {field}: ") and m1.repo.head() == head
    shown = cmem("quarantine", "show", resolved["dispute"], "--agent", "mars-1")
    lines = {line.split("]")[0]: line for line in shown.stdout.splitlines() if line.startswith("  ")}
    assert shown.exit_code == 0 and "resolved: keep" in shown.stdout
    (earth,) = [line for key, line in lines.items() if "earth-1" in key]
    (mars,) = [line for key, line in lines.items() if "mars-1" in key]
    assert f"[refuted by {resolved['dispute']}" in earth and "refuted" not in mars
    listed = cmem("quarantine", "list", "--json", "--agent", "mars-1")
    assert [d["dispute"] for d in json.loads(listed.stdout)] == [resolved["dispute"]]


def _verdicts_apart(trio, ana):
    """ana decides the dispute on earth-1 for earth, then on mars-1 (before it took the first
    verdict) for mars."""
    e1, m1 = trio["earth-1"], trio["mars-1"]
    pump, not_pump = e1.store(PUMP).memory, m1.store(NOT_PUMP).memory
    for agent in (e1, m1, e1, m1):
        agent.push() if agent is e1 else None
        agent.pull()
        agent.push()
    (on_earth,) = e1.disputes("open")
    (on_mars,) = m1.disputes("open")
    for_earth = e1.resolve_dispute(on_earth["dispute"], keep=side_of(on_earth, pump.id), note="checked", by="ana")
    for_mars = m1.resolve_dispute(on_mars["dispute"], keep=side_of(on_mars, not_pump.id), note="checked", by="ana")
    assert m1.get(pump.id).refuted_by and not m1.get(not_pump.id).refuted_by  # its own verdict, applied
    sync_round(trio)
    sync_round(trio)
    return pump, not_pump, for_earth, for_mars


def _stands_everywhere(trio, winner, loser, verdict: dict) -> None:
    for name, agent in trio.items():
        assert agent.get(loser.id).refuted_by == verdict["dispute"], name
        assert agent.get(loser.id).valid_until == verdict["resolution"]["at"], name
        assert agent.get(winner.id).refuted_by is None and not agent.get(winner.id).disputed, name
        assert {h.memory.id for h in agent.recall(ASK_PUMP, k=5)} & {winner.id, loser.id} == {winner.id}, name
        (seen,) = agent.disputes()
        assert seen["status"] == "resolved" and seen["resolution"]["at"] == verdict["resolution"]["at"], name


def test_two_verdicts_made_apart_one_stands_everywhere_and_a_supersede_replaces_it(trio, ana):
    """Two verdicts made apart: every agent keeps the same one, chosen by no time (a writer
    cannot backdate its way ahead), and withdraws the other (simulator, convergence:ids,
    seed 2). A reviewer who saw it supersedes it; every agent then applies the new one."""
    pump, not_pump, for_earth, for_mars = _verdicts_apart(trio, ana)
    (seen,) = trio["earth-1"].disputes()
    standing, other = (for_earth, for_mars) if seen["resolution"]["at"] == for_earth["resolution"]["at"] \
        else (for_mars, for_earth)
    winner, loser = (pump, not_pump) if standing is for_earth else (not_pump, pump)
    _stands_everywhere(trio, winner, loser, standing)
    m1 = trio["mars-1"]
    with pytest.raises(BadInput, match="already resolved"):
        m1.resolve_dispute(seen["dispute"], keep=side_of(seen, loser.id), note="checked again", by="ana")
    superseded = m1.resolve_dispute(seen["dispute"], keep=side_of(seen, loser.id), note="checked again", by="ana",
                                    supersede=True)
    sync_round(trio)
    _stands_everywhere(trio, loser, winner, superseded)


def test_a_reopened_dispute_is_open_everywhere_and_its_verdict_withdrawn(trio, ana, cmem):
    pump, not_pump, _, _ = _verdicts_apart(trio, ana)
    (seen,) = trio["earth-1"].disputes()
    reopened = cmem("quarantine", "reopen", seen["dispute"], "--note", "the inspection was of module B",
                    "--by", "ana", "--agent", "earth-2", "--json")
    assert reopened.exit_code == 0, reopened.output
    assert json.loads(reopened.stdout)["reopened"]["by"] == "ana"
    assert mismatches(json.loads(reopened.stdout), DecidedDispute) == []
    sync_round(trio)
    for name, agent in trio.items():
        (dispute,) = agent.disputes()
        assert dispute["status"] == "escalated" and dispute["resolution"] is None, name
        assert dispute["reopened"]["note"] == "the inspection was of module B", name
        assert mismatches(dispute, DisputeReport) == [], name
        assert not agent.get(pump.id).refuted_by and not agent.get(not_pump.id).refuted_by, name
        assert agent.get(pump.id).disputed and agent.get(not_pump.id).disputed, name
    again = cmem("quarantine", "reopen", seen["dispute"], "--note", "twice", "--by", "ana", "--agent", "earth-2")
    assert again.exit_code == 2 and "only a resolved dispute" in again.output
    decided = trio["mars-1"].resolve_dispute(seen["dispute"], keep=side_of(seen, pump.id), note="module C", by="ana")
    assert mismatches(decided, DecidedDispute) == []
    sync_round(trio)
    _stands_everywhere(trio, pump, not_pump, decided)


def test_a_refuted_claim_stored_again_is_refuted_on_its_origin_as_on_every_agent(trio, ana):
    """Found by the simulator (hash seed 19; real-embedder seeds 113 and 203): a verdict
    refuted what each holder's own copies showed on the losing side, and a memory arriving
    that agreed with it; the same claim stored afterwards stayed live on its origin alone."""
    e1, m1 = trio["earth-1"], trio["mars-1"]
    e1.store(PUMP)
    m1.store(NOT_PUMP)
    resolved = resolved_for_mars(trio)
    e1.pull()
    again = e1.store(PUMP_TOO).memory
    assert again.refuted_by == resolved["dispute"]  # at store: the rule every holder evaluates alike
    e1.push()
    sync_round(trio)
    assert {name: agent.get(again.id).refuted_by for name, agent in trio.items()} == \
        {name: resolved["dispute"] for name in trio}
    assert not any(h.memory.id == again.id for h in e1.recall(PUMP_TOO))


def test_a_peers_refutation_of_its_own_copy_is_not_taken_with_it(trio, ana):
    """Found by the simulator (real-embedder seed 607): a memory arrived with the refutation
    its peer's copy carried (a verdict the receiver does not hold, or one withdrawn since),
    and kept it; receivers that took it from another peer did not."""
    e1, m1 = trio["earth-1"], trio["mars-1"]
    memory = e1.store(PUMP).memory
    with e1.repo.transaction():  # earth-1's own view of it, as a verdict only it applied would leave it
        e1.tables.memories.set(memory.id, refuted_by="a-verdict-elsewhere", valid_until="2026-01-01T00:00:00.000000Z")
        e1.repo.commit("refuted here", author="earth-1")
    e1.push()
    m1.pull()
    assert m1.get(memory.id).refuted_by is None and m1.get(memory.id).valid_until is None
    assert [h.memory.id for h in m1.recall(PUMP)][:1] == [memory.id]


def test_a_verdict_met_before_the_agent_it_names_moves_its_trust_when_it_is_met(trio, ana):
    """earth-2 takes the verdict (from mars-1's pull) before it has met earth-1, whose claim
    it refutes: the move against earth-1 is made at their first meeting, once."""
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    e1.store(PUMP)
    m1.store(NOT_PUMP)
    resolved_for_mars(trio)
    m1.push()
    e2.pull(peers=["mars-1"])
    assert "earth-1" not in e2.trust_scores()  # not met yet: the verdict could not move its trust
    assert [e["reason"] for e in e2.trust_ledger("mars-1")["events"]].count("verdict_for") == 1
    e2.pull()
    (resolved,) = e2.disputes("resolved")
    against = [e for e in e2.trust_ledger("earth-1")["events"] if e["reason"] == "verdict_against"]
    assert [e["evidence"]["dispute"] for e in against] == [resolved["dispute"]]
    e2.pull()  # and not again
    assert [e["reason"] for e in e2.trust_ledger("earth-1")["events"]].count("verdict_against") == 1
