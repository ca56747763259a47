"""Real nats-servers for the tests: one with JetStream on a free loopback port
(collective.sync.events.local_server), and a three-server JetStream cluster on loopback.
Loaded from tests/conftest.py. Without the binary the tests that need NATS skip, saying
how to get it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from collective.sync.events.local_server import NatsNotInstalled, NatsServer, free_port, nats_binary


class ClusterMember(NatsServer):
    """A NatsServer whose config also routes it to the other members."""

    def __init__(self, folder: Path, *, name: str, cluster_port: int, routes: tuple[int, ...]):
        super().__init__(folder, name=name)
        self.cluster_port = cluster_port
        self.routes = routes

    def _config(self) -> Path:
        path = super()._config()
        routes = ", ".join(f'"nats-route://127.0.0.1:{p}"' for p in self.routes)
        with path.open("a") as f:
            f.write('cluster { name: "cmem-test", listen: 127.0.0.1:%d, routes: [%s] }\n'
                    % (self.cluster_port, routes))
        return path


class NatsCluster:
    """Three JetStream servers routed to each other on loopback."""

    def __init__(self, folder: Path, size: int = 3):
        cluster_ports = [free_port() for _ in range(size)]
        self.servers = [ClusterMember(folder / f"n{i + 1}", name=f"n{i + 1}", cluster_port=cluster_ports[i],
                                      routes=tuple(p for j, p in enumerate(cluster_ports) if j != i))
                        for i in range(size)]

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(s.url for s in self.servers)

    def start(self) -> "NatsCluster":
        for server in self.servers:
            server.start(wait=False)
        for server in self.servers:
            server.wait_listening()
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


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
