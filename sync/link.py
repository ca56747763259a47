"""The link between two sites (say Earth and Mars): each has its own commons and its own
NATS; only the commons are joined, by a relay (collective.sync.relay), inside the link's windows and
one link delay late. Events never cross: a site's NATS carries its own agents' events.

A copy leaves its site inside a window and lands on the other one `delay` seconds later.
At most `capacity` branches leave per window (0: no limit), highest priority first:
the shared quarantine branch, then agent branches carrying a memory above the priority
amplitude, then the other agent branches, then dream branches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from collective.errors import BadInput
from collective.model.refs import QUARANTINE_BRANCH, agent_of_dream, agent_of_working

from .schedule import Schedule, non_negative

CASES, FLAGGED, WORKING, DREAM = 0, 1, 2, 3
RANKS = {CASES: "cases", FLAGGED: "priority", WORKING: "normal", DREAM: "dream"}
SITE_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


@dataclass(frozen=True)
class Site:
    """One planet's (or station's) commons: a doltlite file commons or one served over HTTP."""

    name: str
    commons: str

    def __post_init__(self):
        if not SITE_NAME.fullmatch(self.name):
            raise BadInput("site", f"{self.name!r}: a site name is lower-case letters, digits and '-'")
        if not re.match(r"(file:///|https?://)", self.commons):
            raise BadInput("commons", f"{self.commons!r}: a commons is file:///abs/path.db or http(s)://host/name.db")


@dataclass(frozen=True)
class Link:
    a: Site
    b: Site
    schedule: Schedule = Schedule()
    delay: float = 0.0       # seconds, one way
    capacity: int = 0        # branch copies leaving per window and direction (per step when always open); 0: no limit
    priority_amplitude: float = 0.9

    def __post_init__(self):
        non_negative(self.delay, "delay", "seconds")
        if self.a.name == self.b.name or self.a.commons == self.b.commons:
            raise BadInput("site", "a link joins two different sites with two different commons")


def rank(branch: str) -> int | None:
    """How a branch crosses: its rank, or None for branches that stay (main, others)."""
    if branch == QUARANTINE_BRANCH:
        return CASES
    if agent_of_working(branch) is not None:
        return WORKING
    if agent_of_dream(branch) is not None:
        return DREAM
    return None
