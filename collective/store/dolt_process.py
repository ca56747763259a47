"""A Dolt sql-server managed for an agent home: one server, many agent databases.

Layout under <home>/dolt-server/: config.yaml, data/ (the databases),
root/ (DOLT_ROOT_PATH: Dolt's global config, kept out of the user's home,
with metrics and version checks off so nothing leaves the machine),
server.log, server.pid and root-password. Started on demand, bound to
127.0.0.1 on a free port, stopped with SIGTERM; a pid file whose process is
gone is stale and is replaced.

No passwordless root: the first start generates a password for `root`, kept
0600 in root-password, and hands it to Dolt (DOLT_ROOT_PASSWORD); a server
made before there was one gets it set at its next start. The folder is 0700.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from ..config import dolt_binary_override, private_dir, private_file
from ..errors import CollectiveError, ServerUnreachable, StorageError
from .doltserver import ServerAddress

START_TIMEOUT_S = 60.0
START_ATTEMPTS = 3  # a free port taken before the server binds it: other ports, up to this many times
STOP_TIMEOUT_S = 15.0


class DoltNotInstalled(CollectiveError):
    """No dolt binary: run scripts/install-dolt.sh or set CMEM_DOLT."""


def find_dolt() -> Path:
    explicit = dolt_binary_override()
    if explicit:
        if not Path(explicit).is_file():
            raise DoltNotInstalled(f"CMEM_DOLT points to {explicit}, which does not exist")
        return Path(explicit)
    local = Path(__file__).resolve().parents[2] / ".tools" / "bin" / "dolt"
    if local.is_file():
        return local
    found = shutil.which("dolt")
    if found:
        return Path(found)
    raise DoltNotInstalled("dolt is not installed: run scripts/install-dolt.sh (or set CMEM_DOLT)")


def dolt_environment(root: Path) -> dict[str, str]:
    """Dolt's global config in `root`: an author, and no metrics or version checks."""
    config_dir = root / ".dolt"
    config_dir.mkdir(parents=True, exist_ok=True)
    config = config_dir / "config_global.json"
    if not config.exists():
        config.write_text(json.dumps({"user.name": "cmem", "user.email": "cmem@cmem.local",
                                      "metrics.disabled": "true", "versioncheck.disabled": "true"}))
    return {**os.environ, "DOLT_ROOT_PATH": str(root), "DOLT_DISABLE_EVENT_FLUSH": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a recycled pid that is not a dolt server counts as gone
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        return b"sql-server" in cmdline
    except OSError:
        return True


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class PortTaken(StorageError):
    """The server could not bind a port found free a moment before (another process took it)."""


class ManagedDoltServer:
    """With remotesapi=True it also serves its databases as Dolt remotes
    (http://USER@HOST:<remotesapi_port>/<db>): a commons for Dolt agents. Dolt binds
    that port on every interface and asks each request for a Dolt user (`add_user`)."""

    def __init__(self, folder: Path, *, remotesapi: bool = False):
        self.folder = Path(folder)
        self.remotesapi = remotesapi

    @property
    def pid_file(self) -> Path:
        return self.folder / "server.pid"

    @property
    def config_file(self) -> Path:
        return self.folder / "config.yaml"

    @property
    def log_file(self) -> Path:
        return self.folder / "server.log"

    def pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        return pid if _alive(pid) else None

    def port(self, section: str = "listener") -> int | None:
        try:
            lines = self.config_file.read_text().splitlines()
            start = lines.index(f"{section}:")
            for line in lines[start + 1:]:
                if line.strip().startswith("port:"):
                    return int(line.split(":", 1)[1])
        except (OSError, ValueError):
            return None
        return None

    def remotesapi_port(self) -> int | None:
        return self.port("remotesapi") if self.remotesapi else None

    @property
    def password_file(self) -> Path:
        return self.folder / "root-password"

    def root_password(self) -> str:
        """root's password, generated (0600) the first time."""
        try:
            return self.password_file.read_text().strip()
        except FileNotFoundError:
            private_dir(self.folder)
            password = secrets.token_urlsafe(24)
            private_file(self.password_file, password + "\n")
            return password

    def address(self, database: str) -> ServerAddress:
        port = self.ensure_running()
        return ServerAddress("127.0.0.1", port, "root", self.root_password(), database)

    def url(self) -> str:
        """mysql://root:PASSWORD@127.0.0.1:PORT: the server itself, for CMEM_DOLT_SERVER."""
        return self.address("_").dsn().rsplit("/", 1)[0]

    def add_user(self, name: str, password: str) -> None:
        """A Dolt user that may fetch from and push to this server's remotesapi. Dolt lets
        only a superuser push (it replaces the root of the database), so the grant is all."""
        from .doltserver import on_server
        address = self.address("")
        on_server(address, "CREATE USER IF NOT EXISTS %s@'%%' IDENTIFIED BY %s", (name, password))
        on_server(address, "GRANT ALL ON *.* TO %s@'%%' WITH GRANT OPTION", (name,))

    def running(self) -> bool:
        port = self.port()
        return self.pid() is not None and port is not None and _listening(port)

    def ensure_running(self) -> int:
        """Start the server unless it runs; returns its port."""
        if self.running():
            return self.port()  # type: ignore[return-value]
        stale = self.pid()
        if stale is not None:  # alive but not answering: replace it
            self._terminate(stale)
        self.pid_file.unlink(missing_ok=True)
        return self.start()

    def start(self) -> int:
        """Start the server on free ports and return its port. A port found free can be taken
        by another process before the server binds it: then it starts again on other ports."""
        for _ in range(START_ATTEMPTS - 1):
            try:
                return self._start_once()
            except PortTaken:
                pass  # taken meanwhile: other ports
        return self._start_once()

    def _start_once(self) -> int:
        dolt = find_dolt()
        data = private_dir(self.folder / "data")
        port = free_port()
        self.config_file.write_text(
            "log_level: warning\n"
            "behavior:\n  autocommit: true\n"
            f"listener:\n  host: 127.0.0.1\n  port: {port}\n"
            + (f"remotesapi:\n  port: {free_port()}\n" if self.remotesapi else "")
            + f"data_dir: {data}\n")
        env = {**dolt_environment(self.folder / "root"), "DOLT_ROOT_PASSWORD": self.root_password()}
        logged = self.log_file.stat().st_size if self.log_file.exists() else 0
        with open(self.log_file, "ab") as log:
            process = subprocess.Popen([str(dolt), "sql-server", "--config", str(self.config_file)],
                                       cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        self.pid_file.write_text(f"{process.pid}\n")
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if _listening(port):
                self._secure_root(port)
                return port
            time.sleep(0.1)
        if process.poll() is None:
            self._terminate(process.pid)
        self.pid_file.unlink(missing_ok=True)
        with open(self.log_file, "rb") as log:
            log.seek(logged)
            said = log.read().decode(errors="replace").strip()
        error = PortTaken if "address already in use" in said else StorageError
        raise error(f"dolt sql-server did not start (log {self.log_file}): {said[-500:]}")

    def _secure_root(self, port: int) -> None:
        """Dolt sets DOLT_ROOT_PASSWORD only on a server without users yet: a server made
        before root had a password gets it here, from the passwordless root it still has."""
        from .doltserver import connect, on_server
        password = self.root_password()
        try:
            connect(ServerAddress("127.0.0.1", port, "root", password, "")).close()
            return
        except ServerUnreachable:
            pass
        on_server(ServerAddress("127.0.0.1", port, "root", "", ""),
                  "ALTER USER 'root'@'localhost' IDENTIFIED BY %s", (password,))

    def stop(self) -> bool:
        pid = self.pid()
        self.pid_file.unlink(missing_ok=True)
        if pid is None:
            return False
        self._terminate(pid)
        return True

    @staticmethod
    def _terminate(pid: int) -> None:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                waited, _ = os.waitpid(pid, os.WNOHANG)
                if waited == pid:
                    return
            except ChildProcessError:
                pass  # not our child: poll its liveness instead
            if not _alive(pid):
                return
            time.sleep(0.1)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
