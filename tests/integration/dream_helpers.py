"""Memories for dream tests: topics whose members agree, with vectors close together;
and the detect stage run over a whole agent."""

from __future__ import annotations

import numpy as np

from collective.agent import Agent, MemoryInput
from collective.dream import field
from collective.dream.stages import detect
from collective.model import utcnow

LOGS = "ABCDEFGHJK"


def topic_vectors(rng: np.random.Generator, dim: int, topics: int, per: int, spread: float = 0.08) -> np.ndarray:
    centres = rng.standard_normal((topics, dim))
    vectors = np.repeat(centres, per, axis=0) + rng.standard_normal((topics * per, dim)) * spread
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def store_topics(agent: Agent, *, topics: int, per: int, seed: int = 7, importance: float = 0.5) -> list[str]:
    """`per` agreeing memories on each of `topics` pumps; their ids, topic by topic."""
    vectors = topic_vectors(np.random.default_rng(seed), agent.dim, topics, per)
    items = [MemoryInput(f"Coolant pump {t} is running, says log {LOGS[n]}",
                         vector=vectors[t * per + n], importance=importance)
             for t in range(topics) for n in range(per)]
    return [r.memory.id for r in agent.store_many(items)]


def detect_all(agent: Agent, *, neighbours: int = detect.NEIGHBOURS, comparator=None) -> list[detect.DetectedPair]:
    """The detect stage over every live memory of an agent (writes nothing)."""
    comparator = comparator or agent.comparator()
    loaded = field.load(agent.tables.memories.rows(), agent_id=agent.agent_id, dim=agent.dim, trust_scores={},
                        half_lives={}, now=utcnow().timestamp())
    pairs = detect.neighbour_pairs(loaded, agent.index(), neighbours=neighbours, floor=comparator.candidate_floor)
    return detect.classify(loaded, pairs, comparator, agent.repo)
