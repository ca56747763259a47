"""Trust rules and recency. Pure: callers pass `now`, scores and settings in.

Trust is the receiver's view of a peer: it starts at 0.5, stays within
[0.1, 1.0], rises only on third-party corroboration or a person's verdict,
and falls on adverse verdicts and, a little, on quarantine and prune: by a bounded
amount per pull (or dream cycle) however many memories those name, since an open
dispute is a question, not a verdict.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Mapping, MutableMapping

import numpy as np

from ..model.ledger import TrustEvent

START, FLOOR, CEILING = 0.5, 0.1, 1.0
DAY = 86400.0

# reason -> delta; the only ways a score moves.
DELTAS = {
    "corroborated": +0.02,      # a constructive match with a memory of another origin
    "verdict_for": +0.10,       # a person resolved a case in the agent's favour
    "verdict_against": -0.15,   # a person resolved a case against the agent
    "quarantined": -0.01,       # one of its memories entered quarantine
    "pruned": -0.005,           # a dream pruned one of its memories (no stage applies it yet)
}

# reason -> the most its moves add up to in one pull (or one dream cycle) for one peer. A
# pull of an honest peer can open hundreds of cases where the judge is wrong; a case is
# a question for a person, so many of them must not take the peer to the floor at once.
BOUND_PER_PULL = {
    "quarantined": 0.02,
    "pruned": 0.01,
}

DEFAULT_HALF_LIVES_DAYS = {
    "knowledge": 30.0, "experience": 7.0, "social": 14.0, "skill": 21.0, "emotion": 7.0,
}


class SelfTrust(ValueError):
    """An agent tried to change its own score."""


def clamp(score: float) -> float:
    return min(CEILING, max(FLOOR, score))


@dataclass(frozen=True)
class TrustChange:
    agent_id: str
    delta: float
    score_after: float
    reason: str


def folded_weight(reason: str, count: int) -> float:
    """The weight of `count` moves of `reason` made as one change: each counts, up to the
    reason's bound per pull (none for the reasons without one)."""
    count = max(count, 0)
    bound = BOUND_PER_PULL.get(reason)
    return float(count) if bound is None else min(float(count), bound / abs(DELTAS[reason]))


def change(agent_id: str, score: float, reason: str, *, holder: str, weight: float = 1.0) -> TrustChange:
    """The change `reason` makes to `agent_id`'s score as seen by `holder`."""
    if agent_id == holder:
        raise SelfTrust(f"{holder} cannot change its own trust")
    if reason not in DELTAS:
        raise ValueError(f"unknown trust reason {reason!r}")
    after = clamp(score + DELTAS[reason] * weight)
    return TrustChange(agent_id, after - score, after, reason)


@dataclass
class TrustBook:
    """A holder's running view of its peers' scores while one change is planned.

    The one place a score moves: the holder itself is never moved, and a change
    that clamping makes zero (a score held at the floor or ceiling) is no change
    and leaves no ledger row.
    """

    holder: str
    scores: MutableMapping[str, float]

    def move(self, agent_id: str, reason: str, weight: float = 1.0) -> TrustChange | None:
        if agent_id == self.holder or weight == 0.0:
            return None
        moved = change(agent_id, self.scores.get(agent_id, START), reason, holder=self.holder, weight=weight)
        if moved.delta == 0.0:
            return None
        self.scores[agent_id] = moved.score_after
        return moved


def ledger_row(moved: TrustChange, *, event_id: str, evidence: Mapping, verifier: str, at: str) -> TrustEvent:
    """The trust_events row that records one change."""
    return TrustEvent(id=event_id, agent_id=moved.agent_id, delta=moved.delta, score_after=moved.score_after,
                      reason=moved.reason, evidence=json.dumps(dict(evidence), sort_keys=True), verifier=verifier,
                      created_at=at)


def half_life_days(category: str, half_lives: Mapping[str, float] | None = None) -> float:
    return (half_lives or DEFAULT_HALF_LIVES_DAYS).get(category, 30.0)


def recency(created: datetime, now: datetime, category: str,
            half_lives: Mapping[str, float] | None = None) -> float:
    """1 up to a day old, then halves every half-life of the category."""
    return float(_decay((now - created).total_seconds(), half_life_days(category, half_lives)))


def strengths(amplitude: np.ndarray, origin_trust: np.ndarray, age_seconds: np.ndarray,
              half_life: np.ndarray) -> np.ndarray:
    """amplitude * trust * recency of many memories at once (recall's strength)."""
    return amplitude * origin_trust * _decay(age_seconds, half_life)


def recencies(age_seconds: np.ndarray, half_life: np.ndarray) -> np.ndarray:
    """Recency of many memories at once (what fading weighs, with the amplitude)."""
    return _decay(age_seconds, half_life)


def _decay(age_seconds, half_life_days):
    """Recency for a float or an array of ages: 1 up to a day, then halving."""
    return np.exp(-math.log(2) * np.maximum(np.asarray(age_seconds, dtype=np.float64) - DAY, 0.0)
                  / (np.asarray(half_life_days, dtype=np.float64) * DAY))
