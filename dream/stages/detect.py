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
from collective.merge import judging
from collective.judge import cache as analyses
from collective.model import Memory

from .. import partition
from ..field import Field

NEIGHBOURS = 8
BLOCK_TEXTS = 32768  # texts whose analyses are in the judge's memory at once (RuleJudge keeps 65536)


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


def neighbour_pairs(field: Field, index, *, neighbours: int, floor: float,
                    touching: np.ndarray | None = None) -> list[tuple[int, int, float]]:
    """(i, j, cosine) for each unordered pair of selected memories that are ANN neighbours
    with cosine >= floor, i < j, in a fixed order; with `touching` (a mask over the field),
    only pairs with at least one end in it (what an incremental run has to look at again)."""
    if not len(field):
        return []
    asking = np.arange(len(field)) if touching is None else np.flatnonzero(touching)
    labels, _ = index.search_many_labels(field.vectors[asking], neighbours + 1, ef=max(2 * neighbours, 16))
    position = np.full(max(index.label_count, 1), -1, dtype=np.int64)
    known = index.labels_of(field.ids)
    position[known[known >= 0]] = np.flatnonzero(known >= 0)
    i = np.repeat(asking, labels.shape[1])
    j = position[labels.reshape(-1)]
    keep = (j >= 0) & (j != i)
    a, b = np.minimum(i[keep], j[keep]), np.maximum(i[keep], j[keep])
    codes = np.unique(a * len(field) + b)  # sorted: the fixed order
    a, b = codes // len(field), codes % len(field)
    sims = np.einsum("ij,ij->i", field.vectors[a], field.vectors[b])
    chosen = sims >= floor
    return list(zip(a[chosen].tolist(), b[chosen].tolist(), sims[chosen].astype(float).tolist()))


def classify(field: Field, pairs: list[tuple[int, int, float]], comparator, repo=None, *,
             on_every_core: bool = False) -> list[DetectedPair]:
    """The comparator's verdict on each pair (judged on every core when asked, as a pull
    judges: the verdicts are the same); independent ones are left out, the rest in order.

    The judge keeps a bounded number of analyses in memory, so pairs are judged in blocks
    of neighbouring memories, each after the judge is handed its texts' kept analyses."""
    decided: dict[int, object] = {}
    for block in _blocks(len(field), pairs):
        if repo is not None:
            analyses.recall(repo, getattr(comparator, "judge", None),
                            {field.rows[k]["content"] for p in block for k in pairs[p][:2]})
        decided.update(zip(block, _judge(field, [pairs[p] for p in block], comparator, on_every_core)))
    out = []
    for p, (i, j, similarity) in enumerate(pairs):
        verdict = decided[p]
        if verdict.relation != wave.INDEPENDENT:
            out.append(DetectedPair(field.rows[i]["id"], field.rows[j]["id"], verdict.relation, similarity,
                                    verdict.dphi, verdict.confidence, verdict.reason))
    return out


def _blocks(n: int, pairs: list[tuple[int, int, float]]) -> list[list[int]]:
    """Pair numbers grouped so that each group's texts fit the judge's memory: pairs of one
    neighbourhood (a bounded cluster of the pair graph) stay together."""
    groups = partition.clusters(n, pairs, max_size=BLOCK_TEXTS // 2)
    group_of = np.empty(n, dtype=np.int64)
    for g, members in enumerate(groups):
        group_of[members] = g
    order = sorted(range(len(pairs)), key=lambda p: (group_of[pairs[p][0]], group_of[pairs[p][1]], p))
    blocks: list[list[int]] = [[]]
    texts: set[int] = set()
    for p in order:
        i, j, _ = pairs[p]
        if len(texts) + (i not in texts) + (j not in texts) > BLOCK_TEXTS:
            blocks.append([])
            texts = set()
        blocks[-1].append(p)
        texts.update((i, j))
    return [b for b in blocks if b]


def _judge(field: Field, pairs: list[tuple[int, int, float]], comparator, on_every_core: bool) -> list:
    memories = {k: Memory.from_row(field.rows[k]) for k in sorted({k for i, j, _ in pairs for k in (i, j)})}
    met = [(memories[j], memories[i], similarity) for i, j, similarity in pairs]
    if not on_every_core:
        return [comparator.relate(local, remote, similarity) for local, remote, similarity in met]
    with judging.judging(comparator, met, unread=set()) as (verdicts, pending):
        for more in pending:
            verdicts.update(more)
    return [verdicts[(local.id, remote.id)] for local, remote, _ in met]

