"""Fixtures for the integration tests: peers' memories planted on an agent's branch,
a commons per engine (a file, or an HTTP server), three agents sharing it, and the CLI."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner

from collective.agent import Agent
from collective.cli import cli
from collective.model import Memory, content_hash, iso, utcnow, uuid7, validate_vector
from collective.store.commons_server import CommonsServer

TRIO = ("earth-1", "earth-2", "mars-1")


def plant_foreign(agent: Agent, origin: str, content: str, *, vector=None, amplitude: float = 0.5,
                  category: str = "knowledge") -> Memory:
    """A memory as it would arrive from a peer: another origin, committed on our branch."""
    vector = agent.embedder.embed([content])[0] if vector is None else validate_vector(vector, agent.dim)
    now = iso(utcnow())
    memory = Memory(id=uuid7(), content=content, summary=content, vector=vector, dim=len(vector),
                    model_version=agent.embedder.model_version, content_hash=content_hash(content),
                    amplitude=amplitude, phase=0.0, category=category, origin_agent=origin,
                    created_at=now, updated_at=now, signature="from-peer")
    with agent.repo.transaction():
        agent.repo.insert("memories", [memory.to_row()])
        agent.repo.commit(f"pull {origin}", author=agent.agent_id)
    return memory


@pytest.fixture
def foreign():
    """`foreign(agent, origin, content, ...)`: plant a peer's memory without a commons."""
    return plant_foreign


@pytest.fixture
def cmem(home):
    """`cmem(*args)`: the CLI on the test's home, as a person would type it."""
    def run(*args: str):
        return CliRunner().invoke(cli, [*args, "--home", str(home)])
    return run


@pytest.fixture(params=["file", "http"])
def commons_url(request, tmp_path, engine):
    """A commons of the engine's kind: a file (folder for Dolt) or served over HTTP."""
    folder = tmp_path / "commons"
    folder.mkdir()
    if engine == "dolt":  # a Dolt commons: a remote folder, or another sql-server's remotesapi
        if request.param == "file":
            yield f"file://{folder}"
            return
        with request.getfixturevalue("remotesapi_commons_at")(tmp_path / "commons-server") as url:
            yield url
        return
    if request.param == "file":
        yield f"file://{folder / 'commons.db'}"
        return
    server = CommonsServer(folder, bind="127.0.0.1", port=0, allow_create=True).start()  # the first push makes it
    try:
        yield server.url_for("commons.db")
    finally:
        server.stop()


@contextlib.contextmanager
def three_agents(home: Path, url: str, embedder) -> Iterator[dict[str, Agent]]:
    """earth-1, earth-2 and mars-1 sharing the commons at `url` as `origin`, closed after."""
    agents = {name: Agent.init(name, home=home, embedder=embedder) for name in TRIO}
    try:
        for agent in agents.values():
            agent.add_remote("origin", url)
        yield agents
    finally:
        for agent in agents.values():
            agent.close()


@pytest.fixture
def sharing():
    """`with sharing(home, url, embedder) as agents:` the trio on any commons and model."""
    return three_agents


@pytest.fixture
def file_commons(tmp_path, engine) -> str:
    """The address of a file commons of the engine's kind: a doltlite file, or a Dolt remote folder."""
    folder = tmp_path / "commons"
    folder.mkdir()
    return f"file://{folder / 'commons.db'}" if engine == "doltlite" else f"file://{folder}"


@pytest.fixture
def file_trio(home, file_commons, sharing, hash_embedder):
    """earth-1, earth-2 and mars-1 sharing a file commons of the engine's kind."""
    with sharing(home, file_commons, hash_embedder) as trio:
        yield trio


@pytest.fixture
def trio(home: Path, commons_url, real_embedder):
    """earth-1, earth-2 and mars-1, with the real embedder, sharing one commons as `origin`."""
    with three_agents(home, commons_url, real_embedder) as agents:
        yield agents
