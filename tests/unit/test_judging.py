"""Judging a pull's pairs on every core (collective.exchange.judging): forked workers
reach exactly the verdicts one process reaches and send back what they analysed; a
plugged-in judge, which may hold connections, is asked in this process only."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest


from collective import merge
from collective.merge import judging
from collective.judge import CallbackJudge, LearnedJudge, RuleJudge
from collective.runtime import parallel

DATA = Path(__file__).resolve().parents[1] / "data"


def plain(v: merge.PairVerdict) -> tuple:
    """A verdict comparable with ==: an independent pair's phase difference is NaN."""
    return v.relation, None if math.isnan(v.dphi) else v.dphi, v.similarity, v.confidence, v.reason


def test_verdicts_judged_on_every_core_are_those_of_one_process(monkeypatch, loose_memory, analysed_texts):
    labelled = [json.loads(line) for line in (DATA / "judge_dev.jsonl").read_text().splitlines() if line.strip()]
    pairs = [(loose_memory(p["a"]), loose_memory(p["b"]), 0.9) for p in labelled]
    one_process = [merge.JudgeComparator(RuleJudge()).relate(a, b, s) for a, b, s in pairs]
    texts = {m.content for a, b, _ in pairs for m in (a, b)}

    monkeypatch.setattr(judging, "PARALLEL_PAIRS", 1)
    monkeypatch.setattr(parallel, "workers", lambda: 3)
    comparator = merge.JudgeComparator(RuleJudge())
    analysed_texts.clear()  # the one-process run above read every text
    seen = analysed_texts
    with judging.judging(comparator, pairs, unread=texts) as (decided, theirs):
        for more in theirs:
            decided.update(more)
    assert [plain(decided[(a.id, b.id)]) for a, b, _ in pairs] == [plain(v) for v in one_process]
    # this process read only its own third; the workers sent back theirs
    assert 0 < len(set(seen)) < len(texts) / 2
    analysed_here = len(seen)
    for text in texts:
        comparator.judge.analyse(text)
    assert len(seen) == analysed_here


def test_a_plugged_in_judge_is_asked_in_this_process_only(monkeypatch, loose_memory):
    """A callback may hold connections (an LLM client) that a forked child must not share."""
    asked_in: set[int] = set()

    def callback(a, b, similarity):
        asked_in.add(os.getpid())
        return "independent", 0.9, "a fake"

    monkeypatch.setattr(judging, "PARALLEL_PAIRS", 1)
    monkeypatch.setattr(parallel, "workers", lambda: 3)  # a fork-safe judge would fork here, on any machine
    pairs = [(loose_memory(f"tank {n} is full"), loose_memory(f"tank {n} is empty"), 0.9) for n in range(40)]
    with judging.judging(merge.JudgeComparator(CallbackJudge(callback)), pairs, unread=set()) as (mine, theirs):
        assert len(mine) == len(pairs) and list(theirs) == []
    assert asked_in == {os.getpid()}


def test_an_agreement_without_a_shared_word_is_held_as_one_only_when_the_meanings_are_near(loose_memory):
    """The judge called a pump warning and a drill log the same statement (hash cosines 0.52 and
    0.60, simulator seed 1803), and the merge absorbed the warning: a distinct fact hidden."""
    agree = merge.JudgeComparator(CallbackJudge(lambda a, b, s: ("constructive", 0.9, "They agree.")), threshold=0.5)
    pump, drill = loose_memory("The coolant pump in module E is not safe to operate."), \
        loose_memory("Drill log 3: core 3 reached the ice layer.")
    kept_apart = agree.relate(pump, drill, 0.6)
    assert kept_apart.relation == "independent" and "share no word" in kept_apart.reason
    assert agree.relate(pump, drill, 0.8).relation == "constructive"  # near in meaning: a paraphrase
    worded = loose_memory("The coolant pump in module E must not be run.")
    assert agree.relate(pump, worded, 0.6).relation == "constructive"  # "pumps" and "pump" are one word


@pytest.mark.parametrize("short, longer", [
    ("Maria moved to Lisbon in 2023.", "Maria moved to Lisbon in 2023 for a job at a bakery."),
    ("Bed 5 on Ward 3 is occupied.", "Bed 5 on Ward 3 is occupied: admitted overnight with a chest infection."),
    ("Maria moved to Lisbon in 2023.", "Maria and Joao moved to Lisbon in 2023."),  # one name is enough
])
def test_an_agreement_that_says_more_is_linked_not_absorbed(loose_memory, short, longer):
    """Absorbed into the shorter text, what the longer adds left recall ("where does Maria work?"
    found nothing). Kept beside it, linked as partly agreeing; the shorter is still absorbed
    into the longer, which hides nothing, and a paraphrase, reworded both ways, still is."""
    agree = merge.JudgeComparator(CallbackJudge(lambda a, b, s: ("constructive", 0.9, "They agree.")))
    kept = agree.relate(loose_memory(short), loose_memory(longer), 0.8)
    assert kept.relation == "partial" and "also says" in kept.reason
    assert agree.relate(loose_memory(longer), loose_memory(short), 0.8).relation == "constructive"
    assert agree.relate(loose_memory(short), loose_memory(short), 0.99).relation == "constructive"
    paraphrase = ("The user prefers dark mode in every editor.", "In every editor, the user likes dark mode best.")
    assert agree.relate(*map(loose_memory, paraphrase), 0.8).relation == "constructive"


def test_a_few_added_words_that_are_not_a_name_are_no_new_fact(loose_memory):
    """One added word that names nobody ("now") is not a fact of its own: absorbed as before."""
    agree = merge.JudgeComparator(CallbackJudge(lambda a, b, s: ("constructive", 0.9, "They agree.")))
    pump = loose_memory("The coolant pump in module C is safe to operate.")
    assert agree.relate(pump, loose_memory("The coolant pump in module C is now safe to operate."),
                        0.95).relation == "constructive"


@pytest.mark.parametrize("said, denied, cosine", [  # the default embedder's cosines
    ("水泵 P-101 可以安全运行。", "水泵 P-101 不可以安全运行。", 0.94),
    ("Насос P-101 работает.", "Насос P-101 не работает.", 0.99),
    ("مضخة التبريد آمنة للتشغيل", "مضخة التبريد غير آمنة للتشغيل", 0.95),
])
def test_the_built_in_judge_absorbs_no_text_in_a_script_it_cannot_read(loose_memory, said, denied, cosine):
    """The learned judge called each of these denials the same statement (it reads English): the
    merge absorbed it, a contradiction hidden. Kept apart now; a plug-in judge that reads the
    language still decides, and the same text from two agents is still one memory."""
    learned = merge.JudgeComparator(LearnedJudge())
    a, b = loose_memory(said), loose_memory(denied)
    assert LearnedJudge().judge(said, denied, cosine).relation == "constructive"  # what the judge says
    kept_apart = learned.relate(a, b, cosine)
    assert kept_apart.relation == "independent" and "another script" in kept_apart.reason
    assert learned.relate(a, loose_memory(said), 0.999).relation == "constructive"
    reader = merge.JudgeComparator(CallbackJudge(lambda x, y, s: ("constructive", 0.9, "They agree.")))
    assert reader.relate(a, b, cosine).relation == "constructive"
