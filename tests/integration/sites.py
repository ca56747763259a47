"""Two sites, Earth (earth-1, earth-2) and Mars (mars-1), each with its own home and
commons, joined by a relay on a virtual clock."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.sync.clock import VirtualClock
from collective.sync.link import Link, Site
from collective.sync.relay import Relay
from collective.sync.schedule import Schedule

START = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
WINDOWS = ("2026-12-01T10:10Z/2026-12-01T10:30Z", "2026-12-01T11:10Z/2026-12-01T11:30Z",
           "2026-12-01T12:10Z/2026-12-01T12:30Z", "2026-12-01T13:10Z/2026-12-01T13:30Z")


class Planets:
    """earth-1 and earth-2 on Earth's commons, mars-1 on Mars's; a relay and a clock."""

    def __init__(self, root: Path, embedder, *, delay: float = 240.0, capacity: int = 0,
                 windows: tuple[str, ...] = WINDOWS):
        self.root = root
        self.clock = VirtualClock(START)
        self.sites = {"earth": Site("earth", f"file://{root / 'earth-commons.db'}"),
                      "mars": Site("mars", f"file://{root / 'mars-commons.db'}")}
        self.agents: dict[str, Agent] = {}
        for name, site in (("earth-1", "earth"), ("earth-2", "earth"), ("mars-1", "mars")):
            agent = Agent.init(name, home=root / site, embedder=embedder)
            agent.add_remote("origin", self.sites[site].commons)
            agent.push()  # each site's commons exists from the start
            self.agents[name] = agent
        self.link = Link(self.sites["earth"], self.sites["mars"], Schedule.parse(windows), delay, capacity)
        self.timeline: list[dict] = []
        self.relay = Relay(self.link, root / "relay", self.clock, report=self.timeline.append)

    def reviewer(self, name: str = "ana") -> None:
        """A person on Earth whose verdicts every agent honours."""
        made = reviewer_keys.init(Home.at(self.root / "earth"), name)
        for agent in self.agents.values():
            agent.add_reviewer(name, made["public_key"])

    def relay_until(self, moment: datetime, *, poll: float = 60.0) -> None:
        """Step the relay (and the clock) up to `moment`."""
        while self.clock.now() < moment:
            self.relay.step()
            self.clock.sleep(min(self.relay.due_in(poll), (moment - self.clock.now()).total_seconds()))
        self.relay.step()

    def sync_all(self) -> None:
        """Every agent pulls and pushes its own site's commons (inside a site, sub-second)."""
        for agent in self.agents.values():
            agent.pull()
            agent.push()

    def close(self) -> None:
        self.relay.close()
        for agent in self.agents.values():
            agent.close()
