"""Where an agent's database lives and which engine opens it.

An agent folder holds either `memory.db` (embedded doltlite, the default) or
`backend.json` naming a Dolt sql-server database: managed for the home
(`<home>/dolt-server/`) or run by someone else (`mysql://...`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import BadInput
from .base import SqlRepository

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
            dolt_url: str | None = None) -> "Location":
        """Where a new agent goes. Without a backend: $CMEM_BACKEND, else doltlite.
        A Dolt agent without --dolt-url uses $CMEM_DOLT_SERVER (mysql://user:pass@host:port)
        when set, else a server managed in the home."""
        backend = backend or os.environ.get("CMEM_BACKEND") or "doltlite"
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
        shared = os.environ.get("CMEM_DOLT_SERVER")
        if shared:  # one server for many homes: the database name carries the home
            database = database_name(agent_id, home)
            return cls("dolt", folder, home, database, f"{shared.rstrip('/')}/{database}")
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

    def open(self) -> SqlRepository:
        if self.engine == "doltlite":
            from .doltlite import DoltliteRepository
            return DoltliteRepository(self.folder / DB_FILE)
        from .doltserver import DoltServerRepository
        return DoltServerRepository(self._address())

    def create(self) -> SqlRepository:
        """A new, empty database; `finish` makes it the agent's, `discard` removes it."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.engine == "doltlite":
            from .doltlite import DoltliteRepository
            self._staging.unlink(missing_ok=True)  # an interrupted init left it; nothing refers to it
            return DoltliteRepository(self._staging, create=True)
        from .doltserver import DoltServerRepository, create_database, database_exists
        address = self._address()
        if database_exists(address):
            raise BadInput("agent", f"database {address.database} exists already on {address.host}:{address.port}")
        create_database(address)
        return DoltServerRepository(address)

    @property
    def _staging(self) -> Path:
        return self.folder / (DB_FILE + ".init")

    def finish(self) -> None:
        if self.engine == "doltlite":
            # The database appears under its real name only when complete.
            self._staging.rename(self.folder / DB_FILE)
            (self.folder / f".{self._staging.name}-lock").unlink(missing_ok=True)
            return
        (self.folder / BACKEND_FILE).write_text(json.dumps(
            {"engine": "dolt", "database": self.database, "url": self.url}, indent=2) + "\n")

    def discard(self) -> None:
        if self.engine == "doltlite":
            self._staging.unlink(missing_ok=True)
            (self.folder / f".{self._staging.name}-lock").unlink(missing_ok=True)
            return
        from .doltserver import connect
        try:
            conn = connect(self._address())
            with conn.cursor() as cursor:
                cursor.execute(f"DROP DATABASE IF EXISTS `{self.database}`")
            conn.close()
        except Exception:  # best effort: the failure that brought us here matters more
            pass

    def describe(self) -> dict:
        if self.engine == "doltlite":
            return {"engine": "doltlite", "database": str(self.folder / DB_FILE)}
        where = self.url and self._address().url() or f"managed sql-server in {self.server_dir}"
        return {"engine": "dolt", "database": self.database, "server": where}
