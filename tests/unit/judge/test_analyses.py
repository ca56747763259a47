"""Kept judge analyses (local_analyses) and the parallel signature check a pull uses."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from collective import judge
from collective.judge import cache as analyses
from collective.agent import Agent
from collective.identity import Identity, verify, verify_many
from collective.judge import RuleJudge, analyse_text, dump_analysis, load_analysis

DATA = Path(__file__).resolve().parents[2] / "data"
PUMP = "The coolant pump in module C is safe to operate."
PUMP_TOO = "Module C's coolant pump is safe to run."
NOT_PUMP = "The coolant pump in module C is not safe to operate."


def dev_texts() -> list[str]:
    pairs = [json.loads(line) for line in (DATA / "judge_dev.jsonl").read_text().splitlines() if line.strip()]
    return sorted({t for p in pairs for t in (p["a"], p["b"])})


def test_an_analysis_survives_dump_and_load_for_every_labelled_text():
    for text in dev_texts():
        a = analyse_text(text)
        assert load_analysis(dump_analysis(a)) == a


def test_the_empty_sets_of_an_analysis_are_one_object_made_and_kept():
    """Kept analyses stay in memory, and the cyclic collector walks each set they hold: an
    empty set of its own in every empty slot was 6 of an analysis's 13 objects."""
    def empties(a) -> list:
        return [v for name in a.__slots__ if type(v := getattr(a, name)) is frozenset and not v]

    made = analyse_text(PUMP)
    kept = load_analysis(dump_analysis(made))
    assert len(empties(made)) >= 5 and all(v is judge.analysis.EMPTY for v in empties(made))
    assert len({id(v) for v in empties(kept)}) == 1


@pytest.mark.parametrize("blob", [b"", b"not marshal", dump_analysis(analyse_text(PUMP))[:-3]])
def test_bytes_that_are_not_an_analysis_are_refused(blob):
    with pytest.raises(ValueError):
        load_analysis(blob)
    assert not RuleJudge().remember(PUMP, blob)


def count_analyses(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = judge.analyse_text

    def counting(text):
        seen.append(text)
        return real(text)

    monkeypatch.setattr(judge, "analyse_text", counting)
    return seen


@pytest.mark.usefixtures("engine")
def test_kept_analyses_are_read_by_a_fresh_judge_instead_of_analysing(agent, monkeypatch):
    agent.store_many([{"content": t} for t in (PUMP, NOT_PUMP, PUMP_TOO)])
    assert agent.repo.select(analyses.TABLE) == []  # storing does not analyse
    assert analyses.keep(agent.repo, RuleJudge(), [PUMP, NOT_PUMP, PUMP]) == 2
    rows = {r["text_hash"]: r for r in agent.repo.select(analyses.TABLE)}
    assert set(rows) == {analyses.text_hash(PUMP), analyses.text_hash(NOT_PUMP)}
    assert {r["version"] for r in rows.values()} == {judge.analysis_version()}
    assert agent.repo.query("SELECT * FROM dolt_status") == []  # unversioned: no commit, nothing staged

    fresh = RuleJudge()
    seen = count_analyses(monkeypatch)
    assert analyses.recall(agent.repo, fresh, [PUMP, NOT_PUMP, PUMP_TOO]) == [PUMP_TOO]
    v = fresh.judge(PUMP, NOT_PUMP, 0.95)
    assert seen == [] and v.relation == "destructive"
    assert v == RuleJudge().judge(PUMP, NOT_PUMP, 0.95)  # the same verdict as from scratch


@pytest.mark.usefixtures("engine")
def test_stale_or_damaged_analyses_are_analysed_again(agent):
    analyses.keep(agent.repo, RuleJudge(), [PUMP, NOT_PUMP])
    with agent.repo.transaction():
        agent.repo.update(analyses.TABLE, {"version": "older-judge"}, {"text_hash": analyses.text_hash(PUMP)})
        agent.repo.update(analyses.TABLE, {"analysis": b"\x00garbage"}, {"text_hash": analyses.text_hash(NOT_PUMP)})
    assert sorted(analyses.recall(agent.repo, RuleJudge(), [PUMP, NOT_PUMP])) == sorted([PUMP, NOT_PUMP])
    assert analyses.keep(agent.repo, RuleJudge(), [PUMP, NOT_PUMP]) == 2
    assert analyses.recall(agent.repo, RuleJudge(), [PUMP, NOT_PUMP]) == []


@contextlib.contextmanager
def two_agents(home, tmp_path, embedder):
    """earth-1 and mars-1 sharing a file commons."""
    a = Agent.init("earth-1", home=home, embedder=embedder)
    b = Agent.init("mars-1", home=home, embedder=embedder)
    agents = [a, b]
    try:
        url = f"file://{tmp_path / 'commons.db'}" if a.repo.dialect == "sqlite" else f"file://{tmp_path}"
        for agent in agents:
            agent.add_remote("origin", url)
        yield agents
    finally:
        for agent in agents:
            agent.close()


@pytest.mark.usefixtures("engine")
def test_a_pull_keeps_the_analyses_of_the_texts_it_judged(home, tmp_path, hash_embedder):
    with two_agents(home, tmp_path, hash_embedder) as (a, b):
        a.store(PUMP)
        b.store(NOT_PUMP)
        b.push()
        (report,) = a.pull("origin")["peers"]
        assert report["summary"]["destructive"] == 1
        kept = {r["text_hash"] for r in a.repo.select(analyses.TABLE)}
        assert {analyses.text_hash(PUMP), analyses.text_hash(NOT_PUMP)} <= kept


@pytest.mark.usefixtures("engine")
def test_the_index_analyses_what_it_takes_in_so_a_pull_analyses_only_what_arrives(home, tmp_path, hash_embedder,
                                                                                   monkeypatch):
    with two_agents(home, tmp_path, hash_embedder) as agents:
        a, b = agents
        a.store_many([{"content": PUMP}, {"content": PUMP_TOO}])
        assert a.repo.select(analyses.TABLE) == []
        a.index()
        kept = {r["text_hash"] for r in a.repo.select(analyses.TABLE)}
        assert kept == {analyses.text_hash(PUMP), analyses.text_hash(PUMP_TOO)}
        b.store(NOT_PUMP)
        b.push()
        a.close()
        a = agents[0] = Agent.open("earth-1", home=home, embedder=hash_embedder, judge=RuleJudge())  # a cold judge
        seen = count_analyses(monkeypatch)
        (report,) = a.pull("origin")["peers"]
        assert report["summary"]["destructive"] == 1
        assert seen == [NOT_PUMP]
        a.index()  # takes in NOT_PUMP, whose analysis the pull kept
        assert seen == [NOT_PUMP]


@pytest.mark.usefixtures("engine")
def test_a_pull_analyses_the_arrivals_it_judges_and_leaves_the_rest_to_the_index(home, tmp_path, hash_embedder,
                                                                                 monkeypatch):
    alone, gate = "Choir rehearsal moved: Saturday evening, old chapel.", "Gate B12 is closed for maintenance."
    with two_agents(home, tmp_path, hash_embedder) as agents:
        a, b = agents
        c = Agent.init("venus-1", home=home, embedder=hash_embedder)
        agents.append(c)
        c.add_remote("origin", f"file://{tmp_path / 'commons.db'}" if a.repo.dialect == "sqlite" else f"file://{tmp_path}")
        a.store(PUMP)
        a.index()
        b.store_many([{"content": NOT_PUMP}, {"content": alone}])  # alone shares no word with PUMP: no candidate
        c.store(gate)
        b.push()
        c.push()
        a.close()
        a = agents[0] = Agent.open("earth-1", home=home, embedder=hash_embedder, judge=RuleJudge())  # a cold judge
        seen = count_analyses(monkeypatch)
        b_report, _ = a.pull("origin")["peers"]
        assert [p["relation"] for p in b_report["pairs"]] == ["destructive"] and b_report["summary"]["new"] == 2
        # c's candidates were found in an index holding b's arrivals: only what a pair read was analysed
        assert seen == [NOT_PUMP]
        kept = {r["text_hash"] for r in a.repo.select(analyses.TABLE)}
        assert analyses.text_hash(NOT_PUMP) in kept and analyses.text_hash(alone) not in kept
        # c's arrival joins the index outside a pull, read as the index takes it in; the choir
        # stays unread until a pull judges it
        assert a.prepare()["analysed"] == 1 and seen == [NOT_PUMP, gate]


def test_verify_many_agrees_with_verify_on_every_core(tmp_path):
    signer, other = Identity.generate(tmp_path / "a.pem"), Identity.generate(tmp_path / "b.pem")
    checks = []
    for n in range(600):  # enough to take the threaded path
        data = f"claim {n}".encode()
        signature = signer.sign(data) if n % 7 else other.sign(data)  # every 7th by the wrong key
        if n % 11 == 0:
            data += b" tampered"
        checks.append((signer.public_key, data, signature))
    checks.append(("not base64!", b"x", "nor this"))
    assert verify_many(checks) == [verify(*c) for c in checks]
    assert 0 < sum(verify_many(checks)) < len(checks)
