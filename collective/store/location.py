"""Where an agent's database lives and which engine opens it.

An agent folder holds either `memory.db` (embedded doltlite, the default) or
`backend.json` naming a Dolt sql-server database: managed for the home
(`<home>/dolt-server/`) or run by someone else (`mysql://...`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..config import private_dir, private_file
from ..errors import BadInput
from .port import Repository

DB_FILE = "memory.db"
BACKEND_FILE = "backend.json"
ENGINES = ("doltlite", "dolt")


@dataclass(frozen=True)
class Location:
    engine: str
    folder: Path
    home: Path
    database: str | None = None
    url: str | None = None  # a server someone else runs; None means managed for the home

    # --- finding ---------------------------------------------------------
    @classmethod
    def find(cls, folder: Path, home: Path) -> "Location | None":
        if (folder / DB_FILE).exists():
            return cls("doltlite", folder, home)
        config = folder / BACKEND_FILE
        if config.exists():
            data = json.loads(config.read_text())
            return cls(data["engine"], folder, home, data.get("database"), data.get("url"))
        return None

    @classmethod
    def new(cls, folder: Path, home: Path, agent_id: str, *, backend: str | None = None,
            dolt_url: str | None = None, dolt_server: str | None = None) -> "Location":
        """Where a new agent goes: `backend` doltlite (the default) or dolt. A Dolt agent goes to
        `dolt_url` (mysql://user:pass@host:port/db) when given, else to a database on
        `dolt_server` (mysql://user:pass@host:port, shared by many homes) when given, else
        to a server managed in the home."""
        backend = backend or "doltlite"
        if backend not in ENGINES:
            raise BadInput("backend", f"unknown backend {backend!r} (one of {', '.join(ENGINES)})")
        if backend == "doltlite":
            if dolt_url:
                raise BadInput("dolt-url", "only with --backend dolt")
            return cls("doltlite", folder, home)
        from .doltserver import ServerAddress, database_name
        if dolt_url:
            address = ServerAddress.parse(dolt_url)
            return cls("dolt", folder, home, address.database, dolt_url)
        if dolt_server:  # one server for many homes: the database name carries the home
            database = database_name(agent_id, home)
            return cls("dolt", folder, home, database, f"{dolt_server.rstrip('/')}/{database}")
        return cls("dolt", folder, home, database_name(agent_id))

    # --- opening ---------------------------------------------------------
    @property
    def server_dir(self) -> Path:
        return self.home / "dolt-server"

    def _address(self):
        from .doltserver import ServerAddress
        if self.url:
            return ServerAddress.parse(self.url)
        from .dolt_process import ManagedDoltServer
        return ManagedDoltServer(self.server_dir).address(self.database or "")

    def database_url(self) -> str:
        """What `open_repository` opens (starts a managed server if it is down)."""
        if self.engine == "doltlite":
            return doltlite_url(self.folder / DB_FILE)
        return self._address().dsn()

    def open(self) -> Repository:
        from . import open_repository
        return open_repository(self.database_url())

    def create(self) -> Repository:
        """A new, empty database; `finish` makes it the agent's, `discard` removes it.
        The agent's folder is made 0700 and a doltlite database 0600."""
        from . import open_repository
        private_dir(self.folder)
        self.folder.chmod(0o700)
        if self.engine == "doltlite":
            self._staging.unlink(missing_ok=True)  # an interrupted init left it; nothing refers to it
            repo = open_repository(doltlite_url(self._staging), create=True)
            self._staging.chmod(0o600)
            return repo
        from .doltserver import database_exists
        address = self._address()
        if database_exists(address):
            raise BadInput("agent", f"database {address.database} exists already on {address.host}:{address.port}")
        return open_repository(address.dsn(), create=True)

    @property
    def _staging(self) -> Path:
        return self.folder / (DB_FILE + ".init")

    def finish(self) -> None:
        if self.engine == "doltlite":
            # The database appears under its real name only when complete.
            self._staging.rename(self.folder / DB_FILE)
            (self.folder / f".{self._staging.name}-lock").unlink(missing_ok=True)
            return
        # 0600: the URL of a server someone else runs may carry its password
        private_file(self.folder / BACKEND_FILE, json.dumps(
            {"engine": "dolt", "database": self.database, "url": self.url}, indent=2) + "\n")

    def discard(self) -> None:
        if self.engine == "doltlite":
            self._staging.unlink(missing_ok=True)
            (self.folder / f".{self._staging.name}-lock").unlink(missing_ok=True)
            return
        from .doltserver import drop_database
        try:
            drop_database(self._address())
        except Exception:  # best effort: the failure that brought us here matters more
            pass

    def describe(self) -> dict:
        if self.engine == "doltlite":
            return {"engine": "doltlite", "database": str(self.folder / DB_FILE)}
        where = self.url and self._address().url() or f"managed sql-server in {self.server_dir}"
        return {"engine": "dolt", "database": self.database, "server": where}


def doltlite_url(path: Path) -> str:
    """doltlite:///abs/path/memory.db"""
    return "doltlite:" + Path(path).absolute().as_uri()[len("file:"):]
