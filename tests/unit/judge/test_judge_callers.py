"""One judge, two callers: the collective merge and the dream's detect stage;
explicit writer stances still turn its verdict; a plugged-in judge replaces it."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np
import pytest

from collective import merge
from collective.config import Settings
from collective.core import wave
from collective.agent import Agent
from collective.merge import judging
from collective.judge import CANDIDATE_FLOOR, CallbackJudge, RuleJudge
from collective.model import Memory
from collective.runtime import parallel
from tests.integration.dream_helpers import detect_all


def memory(content: str, *, phase: float = 0.0, stance: str | None = None) -> Memory:
    v = np.ones(4, dtype=np.float32) / 2
    return Memory(id=content[:8], content=content, summary=content, vector=v, dim=4, model_version="m",
                  content_hash="h", amplitude=0.5, phase=phase, category="knowledge", origin_agent="x",
                  created_at="2026-01-01T00:00:00.000000Z", updated_at="2026-01-01T00:00:00.000000Z",
                  stance=stance)


@pytest.fixture
def comparator():
    return merge.JudgeComparator(RuleJudge())


def test_the_judge_sees_what_the_phase_cannot(comparator):
    a = memory("EVA 3 is scheduled for Sunday at 14:00")
    b = memory("EVA 3 is scheduled for Wednesday at 14:00")
    verdict = comparator.relate(a, b, 0.93)
    assert verdict.relation == wave.DESTRUCTIVE and verdict.dphi == pytest.approx(math.pi)


def test_an_explicit_stance_turns_the_verdict(comparator):
    said = memory("The coolant pump in module C is safe to operate")
    denied = memory("The coolant pump in module C is safe to operate", phase=math.pi, stance="deny")
    doubted = memory("The coolant pump in module C is safe to operate", phase=math.pi / 2, stance="uncertain")
    assert comparator.relate(said, said, 1.0).relation == wave.CONSTRUCTIVE
    assert comparator.relate(said, denied, 1.0).relation == wave.DESTRUCTIVE
    assert comparator.relate(said, doubted, 1.0).relation == wave.PARTIAL
    # a stance that says what the wording says already turns nothing
    negated = memory("The coolant pump in module C is not safe to operate", phase=math.pi, stance="deny")
    assert comparator.relate(negated, said, 0.97).relation == wave.DESTRUCTIVE
    doubted_negation = memory("The coolant pump in module C is not safe to operate", phase=math.pi / 2,
                              stance="uncertain")
    assert comparator.relate(doubted_negation, said, 0.97).relation == wave.PARTIAL


def test_the_merge_asks_a_callback_judge_down_to_its_floor_and_takes_its_verdict():
    calls = []

    def unsure(a: str, b: str, similarity: float):
        calls.append(similarity)
        return "partial", 0.5, "the model is unsure"

    comparator = merge.JudgeComparator(CallbackJudge(unsure, floor=0.45))
    assert comparator.candidate_floor == 0.45
    a, b = memory("Tank 3 is leaking"), memory("Tank 3 is leaking slowly")
    v = comparator.relate(a, b, 0.9)
    assert (v.relation, v.confidence, v.reason) == (wave.PARTIAL, 0.5, "the model is unsure")
    assert v.dphi == pytest.approx(math.pi / 2)
    below = comparator.relate(a, b, 0.44)
    assert below.relation == wave.INDEPENDENT and calls == [0.9]  # not asked below its floor
    # a judge without a floor of its own has callers fetch down to the rule judge's
    assert merge.JudgeComparator(CallbackJudge(unsure)).candidate_floor == CANDIDATE_FLOOR
    assert merge.JudgeComparator(RuleJudge()).candidate_floor == CANDIDATE_FLOOR


def test_no_verdict_below_the_similarity_threshold_interferes(monkeypatch):
    def agree(a: str, b: str, similarity: float):
        return "constructive", 0.99, "a judge sure they agree"

    def disagree(a: str, b: str, similarity: float):
        return "destructive", 0.9, "a judge sure they contradict"

    valve, pump = memory("Valve R2-1 on the coolant loop is not open."), memory("The coolant pump in module C is safe.")
    comparator = merge.JudgeComparator(CallbackJudge(agree, floor=0.3))
    below = comparator.relate(valve, pump, 0.37)
    assert below.relation == wave.INDEPENDENT and math.isnan(below.dphi)
    assert "below the similarity threshold 0.60" in below.reason
    assert comparator.relate(valve, pump, 0.6).relation == wave.CONSTRUCTIVE
    assert merge.JudgeComparator(CallbackJudge(agree), threshold=0.3).relate(valve, pump, 0.37).relation == \
        wave.CONSTRUCTIVE  # the threshold is the caller's setting
    # nor does a contradiction (the design's threshold holds for every relation), its reading kept
    below = merge.JudgeComparator(CallbackJudge(disagree, floor=0.3)).relate(valve, pump, 0.37)
    assert below.relation == wave.INDEPENDENT and "a judge sure they contradict" in below.reason
    assert merge.JudgeComparator(CallbackJudge(disagree, floor=0.3)).relate(valve, pump, 0.6).relation == \
        wave.DESTRUCTIVE

    ctx = merge.MergeContext(receiver="earth-1", trust={"earth-1": 1.0}, known_cases={}, settings=Settings(),
                             now=datetime(2026, 1, 2, tzinfo=timezone.utc))
    planned = merge.plan("mars-1", "head", [pump], {}, {pump.id: [(valve, 0.37)]}, comparator, ctx)
    assert [m.absorbed_into for m in planned.inserts] == [None] and planned.updates == {}
    assert planned.counts[wave.CONSTRUCTIVE] == 0 and planned.links == []

    # a pull's pairs judged in forked workers reach the same verdict
    monkeypatch.setattr(judging, "PARALLEL_PAIRS", 1)
    monkeypatch.setattr(parallel, "workers", lambda: 2)
    same = [(memory(f"V-{k} valve is shut."), memory(f"V-{k} valve is shut."), 0.45) for k in range(4)]
    rules = merge.JudgeComparator(RuleJudge())
    assert rules.relate(*same[0][:2], 0.9).relation == wave.CONSTRUCTIVE
    with judging.judging(rules, same, unread=set()) as (verdicts, pending):
        for more in pending:
            verdicts.update(more)
    assert {v.relation for v in verdicts.values()} == {wave.INDEPENDENT}


def _two_agents(tmp_path, hash_embedder, judge=None):
    home, commons = tmp_path / "home", tmp_path / "commons.db"
    earth = Agent.init("earth-1", home=home, embedder=hash_embedder)
    mars = Agent.init("mars-1", home=home, embedder=hash_embedder)
    if judge is not None:
        mars.close()
        mars = Agent.open("mars-1", home=home, embedder=hash_embedder, judge=judge)
    for agent in (earth, mars):
        agent.add_remote("origin", f"file://{commons}")
    return earth, mars


def test_a_plugged_in_judge_decides_the_merge(tmp_path, hash_embedder):
    calls = []

    def fake(a: str, b: str, similarity: float):
        calls.append((a, b))
        return "destructive", 0.9, "the fake disagrees with everything"

    earth, mars = _two_agents(tmp_path, hash_embedder, judge=CallbackJudge(fake))
    try:
        earth.store("the greenhouse lights run twelve hours a day")
        mars.store("the greenhouse lights run twelve hours a day")
        earth.push()
        report = mars.pull()
        summary = report["peers"][0]["summary"]
        assert summary["destructive"] == 1 and len(summary["cases"]) == 1
        assert calls and all("greenhouse" in a and "greenhouse" in b for a, b in calls)
        pairs = report["peers"][0]["pairs"]
        assert pairs[0]["reason"] == "the fake disagrees with everything"
    finally:
        earth.close()
        mars.close()


def test_the_built_in_judge_agrees_where_the_fake_did_not(tmp_path, hash_embedder):
    earth, mars = _two_agents(tmp_path, hash_embedder)
    try:
        earth.store("the greenhouse lights run twelve hours a day")
        mars.store("the greenhouse lights run twelve hours a day")
        earth.push()
        summary = mars.pull()["peers"][0]["summary"]
        assert summary["constructive"] == 1 and summary["cases"] == []
    finally:
        earth.close()
        mars.close()


def test_the_dream_detect_stage_asks_the_same_judge(tmp_path, real_embedder):
    with Agent.init("earth-1", home=tmp_path / "home", embedder=real_embedder) as agent:
        agent.store("Airlock 2 inner hatch is latched")
        agent.store("Airlock 2 inner hatch is open")
        agent.store("Rover 5 battery was replaced on Tuesday")
        pairs = detect_all(agent)
        assert [(p.relation) for p in pairs] == [wave.DESTRUCTIVE]
        assert "hatch" in agent.get(pairs[0].a).content

        def agree(a, b, s):
            return "constructive", 1.0, "a fake that agrees"

        fake = merge.JudgeComparator(CallbackJudge(agree, floor=0.3))
        relations = {p.relation for p in detect_all(agent, comparator=fake)}
        assert relations == {wave.CONSTRUCTIVE}
