"""Real nats-servers for the tests: one with JetStream on a free loopback port, and a
three-server JetStream cluster on loopback (collective.sync.events.local_server). Loaded from
tests/conftest.py. Without the binary the tests that need NATS skip, saying how to get it.
"""

from __future__ import annotations

import pytest

from collective.sync.events.local_server import NatsCluster, NatsNotInstalled, NatsServer, nats_binary


def _require_nats() -> None:
    try:
        nats_binary()
    except NatsNotInstalled as e:
        pytest.skip(str(e))


@pytest.fixture
def nats_server(tmp_path):
    """A nats-server with JetStream on a free loopback port, stopped afterwards."""
    _require_nats()
    server = NatsServer(tmp_path / "nats").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def nats_cluster(tmp_path):
    """A three-server JetStream cluster on loopback, stopped afterwards."""
    _require_nats()
    cluster = NatsCluster(tmp_path / "nats-cluster").start()
    try:
        yield cluster
    finally:
        cluster.stop()
