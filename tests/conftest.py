"""Shared fixtures. Every test runs against real doltlite files in tmp_path."""

from __future__ import annotations

import os

import collective.store.doltlite  # noqa: F401  (bootstraps doltlite before anything imports sqlite3)
import pytest
from hypothesis import HealthCheck, settings

from collective.agent import Agent
from collective.embed import HashEmbedder, default_embedder

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("dev", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    """No test reads the developer's own home or default agent."""
    for name in ("CMEM_HOME", "CMEM_AGENT", "CMEM_REMOTE", "CMEM_NATS_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def hash_embedder():
    """Tiny deterministic embedder for fast unit tests."""
    return HashEmbedder(dim=64)


@pytest.fixture(scope="session")
def real_embedder():
    """The default all-MiniLM-L6-v2 model, loaded once per test session."""
    return default_embedder()


@pytest.fixture
def agent(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as a:
        yield a
