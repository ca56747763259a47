"""The refutation rule (quarantine/refutation.py): decided on what every holder holds alike,
so a holder's own state (a vector an absorption blended, a phase a merge moved) never
changes what a verdict refutes."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from collective.core import wave
from collective.embedders import HashEmbedder
from collective.merge import PhaseComparator
from collective.model import Memory, content_hash, iso, utcnow, uuid7
from collective.quarantine.cases import Standing
from collective.quarantine.refutation import Rule, SameClaim

EMBEDDER = HashEmbedder(dim=64)
PUMP = "The coolant pump in module B is safe to operate"
PUMP_TODAY = "The coolant pump in module B is safe to operate today"
NOT_PUMP = "The coolant pump in module B is not safe to operate"
TOMATOES = "The greenhouse tomatoes are ripe"


def memory(content: str, *, vector: np.ndarray | None = None, phase: float | None = None) -> Memory:
    stamp = iso(utcnow())
    own = EMBEDDER.embed([content])[0]
    return Memory(id=uuid7(), content=content, summary=content, vector=own if vector is None else vector,
                  dim=64, model_version=EMBEDDER.model_version, content_hash=content_hash(content), amplitude=0.5,
                  phase=0.0 if phase is None else phase, category="knowledge", origin_agent="earth-1",
                  created_at=stamp, updated_at=stamp, signature="sig")


# the agent's model as the rule sees it: what its row names, and the embedder this process embeds with
MODEL = SimpleNamespace(embed=EMBEDDER.embed, version=EMBEDDER.model_version, dim=EMBEDDER.dim, embedder=EMBEDDER)


def same() -> SameClaim:
    return SameClaim(PhaseComparator, MODEL, wave.SIMILARITY_THRESHOLD)


def rule_of(losers: list[tuple[Memory, tuple[str, str]]], *, winners=(), made=()) -> Rule:
    decided = Standing({m.id: r for m, r in losers}, {m.id: ("x", "t") for m in winners},
                       frozenset(m.id for m in made))
    return Rule(decided, [m for m, _ in losers], same())


def test_the_texts_decide_not_the_holders_vector_or_phase():
    loser = memory(PUMP)
    rule = rule_of([(loser, ("dispute-1", "t1"))])
    copy = memory(PUMP_TODAY)
    assert same()(copy, loser), "the paraphrase says the same thing"
    # on another holder the copy absorbed a memory: its vector blended, its phase moved
    drifted = memory(PUMP_TODAY, vector=wave.blend(copy.vector, 0.5, EMBEDDER.embed([TOMATOES])[0], 0.5),
                     phase=math.pi / 3)
    drifted.id = copy.id
    drifted.merge_history = [{"type": "constructive", "source_id": "elsewhere"}]
    assert rule.of(copy) == rule.of(drifted) == ("dispute-1", "t1")


def test_a_contradiction_or_another_fact_is_not_refuted_with_the_loser():
    loser = memory(PUMP)
    rule = rule_of([(loser, ("dispute-1", "t1"))])
    assert rule.of(memory(NOT_PUMP)) is None
    assert rule.of(memory(TOMATOES)) is None


def test_same_claim_is_symmetric():
    check = same()
    pairs = [(memory(a), memory(b)) for a in (PUMP, PUMP_TODAY, NOT_PUMP) for b in (PUMP, NOT_PUMP, TOMATOES)]
    assert all(check(a, b) == check(b, a) for a, b in pairs)


def test_winners_and_made_memories_are_refuted_by_name_only():
    loser, winner, made = memory(PUMP), memory(PUMP_TODAY), memory(PUMP_TODAY)
    rule = rule_of([(loser, ("dispute-1", "t1"))], winners=[winner], made=[made])
    assert rule.of(winner) is None and rule.of(made) is None
    assert rule.of(loser) == ("dispute-1", "t1")


@pytest.mark.parametrize("order", [0, 1])
def test_refuted_by_two_verdicts_the_least_stands_whichever_is_held_first(order):
    first, second = memory(PUMP), memory(PUMP)
    refutations = [(first, ("dispute-b", "t2")), (second, ("dispute-a", "t9"))]
    rule = rule_of(refutations[::1 if order else -1])
    assert rule.of(memory(PUMP_TODAY)) == ("dispute-a", "t9")
