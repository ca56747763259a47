"""What recall returns (hits, and the closest when none passed) and the candidates it scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..core import scoring
from ..model import Memory, shown_amplitude
from ..reports import RecallHitReport, RecallReport

# score, relevance (its own), cosine similarity, lexical share, relevance borrowed from neighbours,
# strength, access count, memory id
Scored = tuple[float, float, float, float, float, float, int, str]


@dataclass
class RecallHit:
    memory: Memory
    score: float
    similarity: float
    strength: float
    access_count: int = 0
    relevance: float = 0.0  # its own, from its meaning and words: what --min-score is checked against
    lexical: float = 0.0
    context: float = 0.0  # relevance borrowed from the memory stored just before or after (core.context)

    @property
    def resonance(self) -> float:
        return float(scoring.resonance(np.array(self.strength), np.array(self.access_count)))

    def why(self) -> str:
        """The score's parts in words, for whoever reads the hit (a person, or a model)."""
        beside = f", {self.context:.2f} from the memory stored beside it" if self.context > self.relevance else ""
        said = (f"relevance {self.relevance:.2f} (meaning {self.similarity:.2f}, words {self.lexical:.2f}){beside} "
                f"x resonance {self.resonance:.2f} (strength {self.strength:.2f}, recalled {self.access_count}x)")
        return said + ("; disputed" if self.memory.disputed else "") + ("; refuted" if self.memory.refuted_by else "")

    def to_dict(self) -> RecallHitReport:
        """The documented JSON shape (reports.RecallHitReport): the score and its parts
        (relevance from the semantic and lexical evidence, resonance from strength and access)."""
        return {"id": self.memory.id, "content": self.memory.content, "score": round(self.score, 6),
                "why": self.why(), "origin_agent": self.memory.origin_agent, "disputed": self.memory.disputed,
                "created_at": self.memory.created_at, "relevance": round(self.relevance, 6),
                "similarity": round(self.similarity, 6), "lexical": round(self.lexical, 6),
                "context": round(self.context, 6),
                "resonance": round(self.resonance, 6), "strength": round(self.strength, 6),
                "access_count": self.access_count, "refuted_by": self.memory.refuted_by,
                "valid_until": self.memory.valid_until, "summary": self.memory.summary,
                "category": self.memory.category, "tags": list(self.memory.tags),
                "amplitude": shown_amplitude(self.memory.amplitude)}


class Recalled(list):
    """The hits, best first; when none reached the least relevance asked for, `closest` is
    the best of those left out (None when nothing matched at all)."""

    def __init__(self, hits: Iterable[RecallHit] = (), closest: RecallHit | None = None, min_score: float = 0.0):
        super().__init__(hits)
        self.closest = closest
        self.min_score = min_score

    def to_dict(self) -> RecallReport:
        """The documented JSON (reports.RecallReport)."""
        return {"hits": [h.to_dict() for h in self], "min_score": self.min_score,
                "closest": self.closest.to_dict() if self.closest else None}


@dataclass
class Candidates:
    """Scored memories by label, as parallel arrays (faded ones already left out)."""
    labels: np.ndarray
    scores: np.ndarray
    sims: np.ndarray
    lexical: np.ndarray
    borrowed: np.ndarray
    strength: np.ndarray
    counts: np.ndarray
    own: np.ndarray  # relevance by their own meaning and words: what the least relevance asked is of

    @classmethod
    def of(cls, labels, sims, lexical, borrowed, strength, counts) -> "Candidates":
        """`borrowed`: the relevance each takes from its neighbours (core.context)."""
        own = scoring.relevance(sims, lexical)
        scores = scoring.scores(np.maximum(own, borrowed), strength, counts)
        return cls(labels, scores, sims, lexical, borrowed, strength, counts, own)

    def plus(self, other: "Candidates") -> "Candidates":
        return Candidates(*(np.concatenate([a, b]) for a, b in zip(self.arrays(), other.arrays())))

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.labels, self.scores, self.sims, self.lexical, self.borrowed, self.strength, self.counts, self.own

    def kth(self, k: int, least: float) -> float:
        """The k-th best score among those at least `least` relevant by themselves (-inf when fewer)."""
        passing = self.scores[self.own >= least]
        if len(passing) < k:
            return -np.inf
        return float(np.partition(passing, len(passing) - k)[len(passing) - k])

    def top(self, k: int, least: float, first: np.ndarray) -> tuple[np.ndarray, int | None]:
        """Positions of the best k at least `least` relevant by themselves, best first (the labels
        in `first` before all others; ties: lower label first), and of the best one below `least`
        (None when there is none)."""
        order = np.lexsort((self.labels, -self.scores, ~np.isin(self.labels, first)))
        passing = self.own[order] >= least
        below = order[~passing]
        return order[passing][:k], (int(below[0]) if len(below) else None)

    def row(self, i: int, memory_id: str) -> Scored:
        return (float(self.scores[i]), float(self.own[i]), float(self.sims[i]), float(self.lexical[i]),
                float(self.borrowed[i]), float(self.strength[i]), int(self.counts[i]), memory_id)


