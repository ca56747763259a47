"""Creating and opening an agent: its branches, key and own row; once only; unknown names."""

from __future__ import annotations

import pytest

from collective import open_agent
from collective.agent import Agent
from collective.config import Home
from collective.errors import AgentExists, NotFound
from collective.store.sql import migrations

# The storage behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def head(agent: Agent) -> str:
    return agent.log(1)[0].hash


def test_init_creates_branches_key_and_own_row(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        branches = agent.repo.branches()
        assert set(branches) == {"main", "earth-1/working"}
        assert agent.repo.active_branch() == "earth-1/working"
        key_file = home / "agents" / "earth-1" / "ed25519.pem"
        assert key_file.stat().st_mode & 0o777 == 0o600
        row = agent.repo.select("agents", {"agent_id": "earth-1"})[0]
        assert row["public_key"] == agent.identity.public_key and len(row["public_key"]) == 44
        assert row["branch_name"] == "earth-1/working" and row["model_version"] == "hash-bow-v1"
        assert agent.repo.schema_version() == migrations(agent.repo.dialect)[-1][0]
        first_commit = agent.repo.log("main")[0]
        assert first_commit.author == "earth-1" and first_commit.message == "init agent earth-1"
        if agent.location.engine == "doltlite":
            assert (home / "agents" / "earth-1" / "memory.db").read_bytes()[:4] == b"CTLD"
    assert not (home / "agents" / "earth-1" / "memory.db.init").exists()
    assert Home.at(home).config == {"agent": "earth-1"}

def test_init_twice_fails_unless_exist_ok(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        key, first_head = agent.identity.public_key, head(agent)
    key_bytes = (home / "agents" / "earth-1" / "ed25519.pem").read_bytes()
    with pytest.raises(AgentExists) as e:
        Agent.init("earth-1", home=home, embedder=hash_embedder)
    assert e.value.field == "agent"
    with Agent.init("earth-1", home=home, embedder=hash_embedder, exist_ok=True) as again:
        assert again.identity.public_key == key and head(again) == first_head
    assert (home / "agents" / "earth-1" / "ed25519.pem").read_bytes() == key_bytes

def test_open_unknown_agent_is_not_found(home, agent):
    with pytest.raises(NotFound) as e:
        open_agent("mars-9", home=home)
    assert e.value.field == "agent"
    assert not (home / "agents" / "mars-9").exists()
