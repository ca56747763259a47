"""Where an agent's database lives and which engine opens it.

An agent folder holds either `memory.db` (embedded doltlite, the default) or
`backend.json` naming a Dolt sql-server database: managed for the home
(`<home>/dolt-server/`) or run by someone else (`mysql://...`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar
from pathlib import Path

from ..config import private_dir, private_file
from ..errors import BadInput
from .port import Repository

DB_FILE = "memory.db"
BACKEND_FILE = "backend.json"


@dataclass(frozen=True)
class Location:
    """Where one agent's database lives; one subclass per engine (ENGINES), each saying in
    one place how its databases are made, opened, kept and described."""

    folder: Path
    home: Path
    engine: ClassVar[str]

    # --- finding ---------------------------------------------------------
    @classmethod
    def find(cls, folder: Path, home: Path) -> "Location | None":
        if (folder / DB_FILE).exists():
            return DoltliteLocation(folder, home)
        config = folder / BACKEND_FILE
        if config.exists():
            data = json.loads(config.read_text())
            return ENGINES[data["engine"]].described(folder, home, data)
        return None

    @classmethod
    def new(cls, folder: Path, home: Path, agent_id: str, *, backend: str | None = None,
            dolt_url: str | None = None, dolt_server: str | None = None) -> "Location":
        """Where a new agent goes: `backend` doltlite (the default) or dolt (see each engine's `chosen`)."""
        backend = backend or DoltliteLocation.engine
        if backend not in ENGINES:
            raise BadInput("backend", f"unknown backend {backend!r} (one of {', '.join(ENGINES)})")
        return ENGINES[backend].chosen(folder, home, agent_id, dolt_url=dolt_url, dolt_server=dolt_server)

    @classmethod
    def described(cls, folder: Path, home: Path, data: dict) -> "Location":
        """The location its BACKEND_FILE describes."""
        raise NotImplementedError

    @classmethod
    def chosen(cls, folder: Path, home: Path, agent_id: str, *, dolt_url: str | None,
               dolt_server: str | None) -> "Location":
        raise NotImplementedError

    # --- opening and making ----------------------------------------------
    def database_url(self) -> str:
        """What `open_repository` opens."""
        raise NotImplementedError

    def open(self) -> Repository:
        from . import open_repository
        return open_repository(self.database_url())

    def create(self) -> Repository:
        """A new, empty database; `finish` makes it the agent's, `discard` removes it.
        The agent's folder is made 0700."""
        private_dir(self.folder)
        self.folder.chmod(0o700)
        return self._create()

    def _create(self) -> Repository:
        raise NotImplementedError

    def finish(self) -> None:
        raise NotImplementedError

    def discard(self) -> None:
        raise NotImplementedError

    def describe(self) -> dict:
        raise NotImplementedError

    @property
    def keeps_credentials(self) -> bool:
        """Whether the agent's folder keeps the credential it pushes to an authenticated commons with."""
        return False


@dataclass(frozen=True)
class DoltliteLocation(Location):
    """Embedded doltlite: `memory.db` in the agent's folder, 0600."""

    engine: ClassVar[str] = "doltlite"

    @classmethod
    def chosen(cls, folder: Path, home: Path, agent_id: str, *, dolt_url: str | None,
               dolt_server: str | None) -> "Location":
        if dolt_url:
            raise BadInput("dolt-url", "only with --backend dolt")
        return cls(folder, home)

    def database_url(self) -> str:
        return doltlite_url(self.folder / DB_FILE)

    def _create(self) -> Repository:
        from . import open_repository
        self._staging.unlink(missing_ok=True)  # an interrupted init left it; nothing refers to it
        repo = open_repository(doltlite_url(self._staging), create=True)
        self._staging.chmod(0o600)
        return repo

    @property
    def _staging(self) -> Path:
        return self.folder / (DB_FILE + ".init")

    def finish(self) -> None:
        # The database appears under its real name only when complete.
        self._staging.rename(self.folder / DB_FILE)
        (self.folder / f".{self._staging.name}-lock").unlink(missing_ok=True)

    def discard(self) -> None:
        self._staging.unlink(missing_ok=True)
        (self.folder / f".{self._staging.name}-lock").unlink(missing_ok=True)

    def describe(self) -> dict:
        return {"engine": self.engine, "database": str(self.folder / DB_FILE), "server": None}

    @property
    def keeps_credentials(self) -> bool:
        return True


@dataclass(frozen=True)
class DoltServerLocation(Location):
    """A database on a Dolt sql-server, named in `backend.json`: managed for the home
    (`<home>/dolt-server/`) or run by someone else (`url`)."""

    database: str | None = None
    url: str | None = None  # a server someone else runs; None means managed for the home
    engine: ClassVar[str] = "dolt"

    @classmethod
    def described(cls, folder: Path, home: Path, data: dict) -> "Location":
        return cls(folder, home, data.get("database"), data.get("url"))

    @classmethod
    def chosen(cls, folder: Path, home: Path, agent_id: str, *, dolt_url: str | None,
               dolt_server: str | None) -> "Location":
        """`dolt_url` (mysql://user:pass@host:port/db) when given, else a database on
        `dolt_server` (mysql://user:pass@host:port, shared by many homes) when given, else
        on a server managed in the home."""
        from .doltserver import ServerAddress, database_name
        if dolt_url:
            return cls(folder, home, ServerAddress.parse(dolt_url).database, dolt_url)
        if dolt_server:  # one server for many homes: the database name carries the home
            database = database_name(agent_id, home)
            return cls(folder, home, database, f"{dolt_server.rstrip('/')}/{database}")
        return cls(folder, home, database_name(agent_id))

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
        return self._address().dsn()  # starts a managed server if it is down

    def _create(self) -> Repository:
        from . import open_repository
        from .doltserver import database_exists
        address = self._address()
        if database_exists(address):
            raise BadInput("agent", f"database {address.database} exists already on {address.host}:{address.port}")
        return open_repository(address.dsn(), create=True)

    def finish(self) -> None:
        # 0600: the URL of a server someone else runs may carry its password
        private_file(self.folder / BACKEND_FILE, json.dumps(
            {"engine": self.engine, "database": self.database, "url": self.url}, indent=2) + "\n")

    def discard(self) -> None:
        from .doltserver import drop_database
        try:
            drop_database(self._address())
        except Exception:  # best effort: the failure that brought us here matters more
            pass

    def describe(self) -> dict:
        where = self.url and self._address().url() or f"managed sql-server in {self.server_dir}"
        return {"engine": self.engine, "database": self.database, "server": where}


ENGINES: dict[str, type[Location]] = {e.engine: e for e in (DoltliteLocation, DoltServerLocation)}


def doltlite_url(path: Path) -> str:
    """doltlite:///abs/path/memory.db"""
    return "doltlite:" + Path(path).absolute().as_uri()[len("file:"):]
