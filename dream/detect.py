"""The dream's detect stage: which of an agent's memories agree, partly agree
or contradict each other.

It asks the same comparator as the collective merge (the agent's judge), so
a pair is classified the same way whether it met in a pull or in a dream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from collective.core import wave
from collective.judge import cache as analyses
from collective.model import Memory

NEIGHBOURS = 8


@dataclass(frozen=True)
class DetectedPair:
    a: str
    b: str
    relation: str
    similarity: float
    dphi: float
    confidence: float
    reason: str

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "relation": self.relation, "similarity": round(self.similarity, 4),
                "phase_difference": None if np.isnan(self.dphi) else round(self.dphi, 4),
                "confidence": round(self.confidence, 4), "reason": self.reason}


def detect(agent, memories: Sequence[Memory] | None = None, *, neighbours: int = NEIGHBOURS,
           comparator=None) -> list[DetectedPair]:
    """Classify each selected memory against its ANN neighbours (all recallable
    memories when none are selected); every unordered pair once, independent ones left out."""
    comparator = comparator or agent.comparator()
    index = agent.index()
    if memories is None:
        rows = agent.repo.select("memories", {"retracted": 0, "absorbed_into": None})
        memories = [Memory.from_row(r) for r in rows if r["dim"] == agent.dim]
    if not memories:
        return []
    hits = index.search_many(np.stack([m.vector for m in memories]), neighbours + 1)
    wanted = {mid for found in hits for mid, s in found if s >= comparator.candidate_floor}
    by_id = {r["id"]: Memory.from_row(r) for r in agent.repo.select_in("memories", "id", sorted(wanted))}
    # the judge's kept analyses of these texts, as a pull uses them (detect writes nothing)
    analyses.recall(agent.repo, getattr(comparator, "judge", None),
                    {m.content for m in memories} | {m.content for m in by_id.values()})
    seen: set[tuple[str, str]] = set()
    pairs: list[DetectedPair] = []
    for memory, found in zip(memories, hits):
        for mid, _ in found:
            other = by_id.get(mid)
            key = tuple(sorted((memory.id, mid)))
            if other is None or mid == memory.id or key in seen:
                continue
            seen.add(key)
            similarity = float(np.dot(memory.vector, other.vector))
            if similarity < comparator.candidate_floor:
                continue
            verdict = comparator.relate(other, memory, similarity)
            if verdict.relation != wave.INDEPENDENT:
                pairs.append(DetectedPair(key[0], key[1], verdict.relation, similarity, verdict.dphi,
                                          verdict.confidence, verdict.reason))
    return pairs
