"""Trust rules and recency. Pure: callers pass `now`, scores and settings in.

Trust is the receiver's view of a peer: it starts at 0.5, stays within
[0.1, 1.0], rises only on third-party corroboration or a person's verdict,
and falls on adverse verdicts and, a little, on quarantine and prune.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

START, FLOOR, CEILING = 0.5, 0.1, 1.0
DAY = 86400.0

# reason -> delta; the only ways a score moves.
DELTAS = {
    "corroborated": +0.02,      # a constructive match with a memory of another origin
    "verdict_for": +0.10,       # a person resolved a case in the agent's favour
    "verdict_against": -0.15,   # a person resolved a case against the agent
    "quarantined": -0.01,       # one of its memories entered quarantine
    "pruned": -0.005,           # a dream pruned one of its memories
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


def change(agent_id: str, score: float, reason: str, *, holder: str, weight: float = 1.0) -> TrustChange:
    """The change `reason` makes to `agent_id`'s score as seen by `holder`."""
    if agent_id == holder:
        raise SelfTrust(f"{holder} cannot change its own trust")
    if reason not in DELTAS:
        raise ValueError(f"unknown trust reason {reason!r}")
    after = clamp(score + DELTAS[reason] * weight)
    return TrustChange(agent_id, after - score, after, reason)


def recency(created: datetime, now: datetime, category: str,
            half_lives: dict[str, float] | None = None) -> float:
    """1 up to a day old, then halves every half-life of the category."""
    age = (now - created).total_seconds()
    if age <= DAY:
        return 1.0
    half_life = (half_lives or DEFAULT_HALF_LIVES_DAYS).get(category, 30.0) * DAY
    return math.exp(-math.log(2) * (age - DAY) / half_life)
