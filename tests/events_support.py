"""What the event scenarios share: two agents that know each other's keys through a
commons, a spy on `cmem.>` that checks the raw bytes of every message, and a listener
run beside the scenario."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from pathlib import Path
from typing import AsyncIterator, Sequence

import pytest

from collective.agent import Agent
from collective.model.events import FORBIDDEN_FIELDS, MAX_NUMBERS
from collective.sync.events.connection import NatsOptions
from collective.sync.events.service import Listener
from collective.sync.policy import PolicySettings


def met(home: Path, embedder, commons: Path | str, names: Sequence[str] = ("earth-1", "mars-1")) -> dict[str, Agent]:
    """Agents that pushed and pulled once through a commons (a path: a doltlite file): each
    holds the others' keys."""
    agents = {n: Agent.init(n, home=home, embedder=embedder) for n in names}
    for agent in agents.values():
        agent.add_remote("origin", commons if isinstance(commons, str) else f"file://{commons}")
        agent.push()
    for agent in agents.values():
        agent.pull()
    return agents


@pytest.fixture(name="two")
def two_agents(home, hash_embedder, tmp_path):
    """earth-1 and mars-1 in the test's home, each holding the other's key."""
    agents = met(home, hash_embedder, tmp_path / "commons.db")
    yield agents
    for agent in agents.values():
        agent.close()


def options_for(agent: Agent, urls: Sequence[str], **overrides) -> NatsOptions:
    options = NatsOptions.from_home(agent.home, servers=tuple(urls))
    return NatsOptions(**{**options.__dict__, **overrides}) if overrides else options


class Spy:
    """Every message on cmem.>, as raw bytes."""

    def __init__(self):
        self.messages: list[tuple[str, bytes]] = []
        self.nc = None

    async def start(self, urls: Sequence[str]) -> "Spy":
        import nats
        self.nc = await nats.connect(servers=list(urls), max_reconnect_attempts=-1, reconnect_time_wait=0.2)

        async def keep(message):
            self.messages.append((message.subject, message.data))
        await self.nc.subscribe("cmem.>", cb=keep)
        await self.nc.flush()
        return self

    def assert_metadata_only(self, agents: Sequence[Agent]) -> None:
        """No memory content, no vector, ever: checked on the bytes and on the parsed JSON."""
        texts, vectors = [], []
        for agent in agents:
            for row in agent.tables.memories.rows(columns=("content", "summary", "vector")):
                if row["content"] != row["summary"]:
                    texts.append(row["content"].encode())
                vectors.append(bytes(row["vector"]))
        events = [(s, d) for s, d in self.messages if not s.startswith("cmem.>") and d]
        assert events, "the spy saw nothing"
        for subject, data in events:
            for text in texts:
                assert text not in data, f"content on {subject}"
            for blob in vectors:
                assert base64.b64encode(blob) not in data and blob[:16] not in data, f"a vector on {subject}"
            _metadata_only(json.loads(data), subject)

    async def stop(self) -> None:
        if self.nc is not None:
            await self.nc.close()


def _metadata_only(value, subject: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            assert key.lower() not in FORBIDDEN_FIELDS, f"{key} on {subject}"
            _metadata_only(item, subject)
    elif isinstance(value, list):
        assert sum(isinstance(v, (int, float)) for v in value) <= MAX_NUMBERS, f"numbers on {subject}"
        for item in value:
            _metadata_only(item, subject)


@contextlib.asynccontextmanager
async def spying(urls: Sequence[str], agents: Sequence[Agent]) -> AsyncIterator[Spy]:
    spy = await Spy().start(urls)
    try:
        yield spy
        await asyncio.sleep(0.2)  # the last messages reach the spy
        spy.assert_metadata_only(agents)
    finally:
        await spy.stop()


@contextlib.asynccontextmanager
async def listening(agent: Agent, options: NatsOptions, settings: PolicySettings | None = None,
                    **kwargs) -> AsyncIterator[tuple[Listener, list]]:
    """A listener running beside the scenario; yields it and the outcomes it reports."""
    outcomes: list = []
    listener = Listener(agent.sync_port(), options, settings, on_outcome=lambda o, p: outcomes.append((o, p)),
                        **kwargs)
    task = asyncio.ensure_future(listener.run())
    ready = asyncio.ensure_future(listener.ready.wait())
    await asyncio.wait([task, ready], return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()  # raises what stopped it
    try:
        yield listener, outcomes
    finally:
        listener.stop.set()
        await task


async def until(predicate, timeout: float = 20.0, step: float = 0.05) -> None:
    """Wait for a condition the scenario drives (never a fixed sleep that hopes)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(step)


def handled(outcomes, event_type: str, sender: str | None = None) -> list:
    return [o for o, _ in outcomes if o.status == "handled" and o.envelope["event_type"] == event_type
            and (sender is None or o.envelope["agent"] == sender)]
