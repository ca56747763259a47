"""What the merge asks of a judge (`Judge`), what it answers (`Verdict`), and
`CallbackJudge`, which makes any callable a judge (an NLI model, an LLM)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, Sequence, runtime_checkable

from ..core.wave import RELATION_PHASE
from ..errors import CollectiveError
from ..model.enums import Relation
from .lexicon import CANDIDATE_FLOOR

RELATIONS = tuple(Relation)  # one order everywhere: reports, messages, the merge's counts


class JudgeOutputError(CollectiveError, ValueError):
    """A plug-in judge returned something that is not a valid verdict."""


@dataclass(frozen=True)
class Verdict:
    relation: str
    confidence: float
    reason: str
    matched: tuple[str, ...] = ()
    clashed: tuple[str, ...] = ()

    @property
    def phase_difference(self) -> float | None:
        """0 for constructive, pi for destructive, pi/2 for partial, None for independent."""
        return None if self.relation == Relation.INDEPENDENT else RELATION_PHASE[self.relation]

    def to_dict(self) -> dict:
        return {
            "relation": self.relation,
            "confidence": self.confidence,
            "reason": self.reason,
            "matched": list(self.matched),
            "clashed": list(self.clashed),
            "phase_difference": self.phase_difference,
        }


def floor_verdict(similarity: float, floor: float) -> Verdict:
    """The verdict on a pair too far apart to be judged at all."""
    return Verdict("independent", 0.95, f"They are too unlike to compare: their cosine similarity is "
                                        f"{similarity:.2f}, below the floor of {floor:.2f}.")


@runtime_checkable
class Judge(Protocol):
    def judge(self, a: str, b: str, similarity: float) -> Verdict: ...


class CallbackJudge:
    """Wrap any callable ``(a, b, similarity) -> (relation, confidence, reason)``.

    Use it to plug an NLI model or an LLM into the merge. The callable's
    output is validated: the relation must be one of `RELATIONS`, the
    confidence a number in [0, 1], the reason a non-empty string; anything
    else raises `JudgeOutputError`. With ``floor`` set, pairs below that
    cosine are answered "independent" without calling it.
    """

    def __init__(self, fn: Callable[[str, str, float], Sequence], *, floor: float | None = None, name: str | None = None):
        if not callable(fn):
            raise TypeError("CallbackJudge needs a callable")
        self._fn = fn
        self.floor = floor
        self.name = name or getattr(fn, "__name__", "callback")

    @property
    def candidate_floor(self) -> float:
        """The cosine down to which callers should fetch candidate pairs."""
        return CANDIDATE_FLOOR if self.floor is None else self.floor

    def judge(self, a: str, b: str, similarity: float) -> Verdict:
        sim = float(similarity)
        if self.floor is not None and not sim >= self.floor:
            return floor_verdict(sim, self.floor)
        out = self._fn(a, b, sim)
        if isinstance(out, Verdict):
            out = (out.relation, out.confidence, out.reason)
        if not isinstance(out, (tuple, list)) or len(out) != 3:
            raise JudgeOutputError(f"judge {self.name} must return (relation, confidence, reason), got {out!r:.80}")
        relation, confidence, reason = out
        if relation not in RELATIONS:
            raise JudgeOutputError(f"judge {self.name} returned relation {relation!r}; expected one of {', '.join(RELATIONS)}")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 <= float(confidence) <= 1.0:
            raise JudgeOutputError(f"judge {self.name} returned confidence {confidence!r}; expected a number in [0, 1]")
        if not isinstance(reason, str) or not reason.strip():
            raise JudgeOutputError(f"judge {self.name} returned an empty reason")
        return Verdict(relation, float(confidence), reason.strip())
