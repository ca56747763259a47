"""Detect: which of the selected memories agree, partly agree or contradict each other.

Each selected memory is compared with its ANN neighbours among the selected, and
every pair is classified by the agent's comparator: the same judge and wave rules
as the collective merge, so a pair is classified alike whether it met in a pull
or in a dream.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from collective.core import wave
from collective.judge import cache as analyses
from collective.model import Memory

from ..field import Field

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


def neighbour_pairs(field: Field, index, *, neighbours: int, floor: float) -> list[tuple[int, int, float]]:
    """(i, j, cosine) for each unordered pair of selected memories that are ANN neighbours
    with cosine >= floor, i < j, in a fixed order."""
    if not len(field):
        return []
    hits = index.search_many(field.vectors, neighbours + 1, ef=max(2 * neighbours, 16))
    found: set[tuple[int, int]] = set()
    for i, row in enumerate(hits):
        for other, _ in row:
            j = field.position.get(other)
            if j is not None and j != i:
                found.add((min(i, j), max(i, j)))
    ordered = sorted(found)
    if not ordered:
        return []
    pairs = np.array(ordered)
    sims = np.einsum("ij,ij->i", field.vectors[pairs[:, 0]], field.vectors[pairs[:, 1]])
    return [(int(i), int(j), float(s)) for (i, j), s in zip(ordered, sims) if s >= floor]


def classify(field: Field, pairs: list[tuple[int, int, float]], comparator, repo=None) -> list[DetectedPair]:
    """The comparator's verdict on each pair; independent ones are left out."""
    if repo is not None:  # the judge's kept analyses of these texts, as a pull uses them
        texts = {field.rows[k]["content"] for i, j, _ in pairs for k in (i, j)}
        analyses.recall(repo, getattr(comparator, "judge", None), texts)
    memories: dict[int, Memory] = {}

    def memory(k: int) -> Memory:
        if k not in memories:
            memories[k] = Memory.from_row(field.rows[k])
        return memories[k]

    out = []
    for i, j, similarity in pairs:
        verdict = comparator.relate(memory(j), memory(i), similarity)
        if verdict.relation != wave.INDEPENDENT:
            out.append(DetectedPair(field.rows[i]["id"], field.rows[j]["id"], verdict.relation, similarity,
                                    verdict.dphi, verdict.confidence, verdict.reason))
    return out


def detect(agent, *, neighbours: int = NEIGHBOURS, comparator=None) -> list[DetectedPair]:
    """Detect over every live memory of an agent (writes nothing)."""
    from .. import field as field_mod
    from collective.model import utcnow

    comparator = comparator or agent.comparator()
    rows = agent.tables.memories.rows()
    loaded = field_mod.load(rows, agent_id=agent.agent_id, dim=agent.dim, trust_scores={}, half_lives={},
                            now=utcnow().timestamp())
    pairs = neighbour_pairs(loaded, agent.index(), neighbours=neighbours, floor=comparator.candidate_floor)
    return classify(loaded, pairs, comparator, agent.repo)
