"""The cascade: the learned judge first, the shipped cross-encoder on the pairs it leaves open.

These run the real int8 model (collective/judge/judge_data/cross_encoder.onnx) with
onnxruntime: no stand-in for the encoder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from collective.judge import LearnedJudge, default_judge
from collective.judge.cascade import CascadeJudge, shipped_cascade
from collective.judge.cross_encoder import READING, CrossEncoder, model_path, shipped
from collective.merge import JudgeComparator
from collective.model import Memory, content_hash, iso, utcnow, uuid7
from collective.runtime import parallel

ROOT = Path(__file__).resolve().parents[3]
HIGH = 0.9


@pytest.fixture(scope="module")
def cascade() -> CascadeJudge:
    return CascadeJudge()


def test_the_model_ships_small_and_the_cascade_is_asked_for():
    assert model_path() is not None and shipped_cascade() is not None
    assert model_path().stat().st_size < 30_000_000  # int8: a few tens of MB at most
    assert type(default_judge()) is LearnedJudge
    assert type(default_judge(cascade=True)) is CascadeJudge
    notice = (model_path().parent / "NOTICE").read_text()
    assert "CC BY-SA 4.0" in notice and "SNLI" in notice


def test_a_reading_is_probabilities_and_the_relation_part_ignores_order():
    enc = shipped()
    pairs = [("The pump is running.", "The pump has stopped."), ("Tea for the user.", "The user likes tea.")]
    r, swapped = enc.read(pairs), enc.read([(b, a) for a, b in pairs])
    assert r.shape == (2, len(READING))
    for part in (slice(0, 4), slice(4, 7), slice(7, 10)):
        assert np.allclose(r[:, part].sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose(r[:, :4], swapped[:, :4], atol=1e-5)  # both orders averaged
    assert np.allclose(r[:, 4:7], swapped[:, 7:10], atol=1e-5)  # a-first NLI is b-first NLI of the swap


def test_a_pair_reads_the_same_whatever_its_company():
    enc = CrossEncoder()
    pairs = [(f"Rover {i} is parked at the north dock.", "The rover is out driving.") for i in range(7)]
    pairs.append(("Short.", "A much longer sentence that needs padding in its batch, since the others are short."))
    together = enc.read(pairs)
    alone = np.vstack([enc.read([p]) for p in pairs])
    assert np.array_equal(together, alone)


def test_the_readers_settle_numbers_times_and_identities_without_the_encoder():
    judge = CascadeJudge()
    settled = [("Rover 5's battery is at 80%.", "Rover 5's battery is at 35%."),
               ("The EVA starts at 14:00.", "The EVA starts at 09:00."),
               ("Pump P-101 is offline.", "Pump P-102 is offline.")]
    verdicts = judge.judge_many([(a, b, HIGH) for a, b in settled])
    assert [v.relation for v in verdicts] == ["destructive", "destructive", "independent"]
    assert judge.opened == 0


def test_the_same_words_an_aside_apart_are_one_claim_without_the_encoder():
    # the encoder alone reads the differing report numbers as a contradiction
    judge = CascadeJudge()
    a, b = ("Coolant pump 17 in module R is safe to operate (report 12)",
            "Coolant pump 17 in module R is safe to operate (report 20451)")
    assert judge.encoder.read([(a, b)])[0][READING.index("ce_destructive")] > 0.5
    for sim in (0.7, 0.95):
        verdict = judge.judge(a, b, sim)
        assert verdict == LearnedJudge().judge(a, b, sim) and verdict.relation != "destructive"
    assert judge.opened == 0


def test_every_pair_the_learned_judge_would_absorb_is_read():
    judge, learned = CascadeJudge(), LearnedJudge()
    a, b = "The supply drop landed intact.", "The cargo lander touched down undamaged."
    assert learned.judge(a, b, HIGH).relation == "constructive"
    judge.judge(a, b, HIGH)
    assert judge.opened == 1


def test_judge_many_is_judge_pair_by_pair(cascade):
    rows = [json.loads(line) for line in (ROOT / "tests" / "data" / "judge_dev.jsonl").read_text().splitlines()[:60]]
    triples = [(r["a"], r["b"], 0.3 + 0.6 * (i % 3) / 2) for i, r in enumerate(rows)]
    many = cascade.judge_many(triples)
    assert many == [cascade.judge(a, b, s) for a, b, s in triples]
    assert cascade.judge("x", "y", 0.01).relation == "independent"  # below the floor: not read


def test_without_the_model_it_is_the_learned_judge():
    judge = CascadeJudge()
    judge.encoder = None
    learned = LearnedJudge()
    pairs = [("The hatch is open.", "The hatch is closed."), ("The drop landed intact.", "The lander touched down.")]
    assert judge.judge_many([(a, b, HIGH) for a, b in pairs]) == [learned.judge(a, b, HIGH) for a, b in pairs]


def test_a_forked_worker_reads_with_its_own_session():
    enc = CrossEncoder()
    pairs = [("The clinic is open on Sunday.", "The clinic is closed on Sundays.")]
    here = enc.read(pairs)

    def work(chunk):
        return os.getpid(), enc.read(chunk)

    with parallel.Forked(work, [pairs]) as forked:
        (pid, there), = list(forked.results())
    assert pid != os.getpid()
    assert np.allclose(here, there, atol=1e-6)


def test_the_merge_asks_the_cascade_once_per_batch(monkeypatch):
    judge = CascadeJudge()
    calls = []
    real = judge.encoder.read
    monkeypatch.setattr(judge.encoder, "read", lambda pairs: calls.append(len(pairs)) or real(pairs))
    comparator = JudgeComparator(judge)
    texts = [("The lander touched down undamaged.", "The supply drop landed intact."),
             ("The user prefers tea.", "Tea is what the user likes best."),
             ("The greenhouse lights are on.", "The greenhouse lights are on, except row 4.")]
    pairs = [(memory(a), memory(b), HIGH) for a, b in texts]
    verdicts = comparator.relate_many(pairs)
    assert len(verdicts) == 3 and len(calls) == 1 and calls[0] >= 1


def memory(content: str) -> Memory:
    stamp = iso(utcnow())
    return Memory(id=uuid7(), content=content, summary=content, vector=np.ones(4, np.float32) / 2, dim=4,
                  model_version="m", content_hash=content_hash(content), amplitude=0.5, phase=0.0,
                  category="knowledge", origin_agent="earth-1", created_at=stamp, updated_at=stamp, signature="sig")
