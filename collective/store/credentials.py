"""An agent's credential for an authenticated doltlite commons: doltlite's own (dolt_creds).

An Ed25519 key pair in `<agent folder>/creds/<id>.jwk` (0600, in a 0700 folder; doltlite's
JWK format). The commons' operator authorises it by putting its public half in the folder
the server reads with --auth-keys (`cmem credential --export DIR`); the agent's pushes and
fetches over https then carry a short-lived token signed with it. doltlite sends no token
over plain http, and reads the credential folder from DOLTLITE_CREDS_DIR at each request,
so `using(folder)` sets that variable around one remote call.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Iterator

from ..errors import BadInput, StorageError

CREDS_DIR = "creds"
_ENV = ("DOLTLITE_CREDS_DIR", "DOLTLITE_CREDS_KID")
_environment = threading.RLock()  # one process environment: one credential at a time


@contextlib.contextmanager
def using(folder: Path) -> Iterator[None]:
    """Remote calls inside act with the credential kept in `folder`/creds (when there is one)."""
    creds = folder / CREDS_DIR
    if not creds.is_dir():
        yield
        return
    with _environment:
        saved = {name: os.environ.get(name) for name in _ENV}
        os.environ["DOLTLITE_CREDS_DIR"] = str(creds)
        os.environ.pop("DOLTLITE_CREDS_KID", None)  # the folder holds one: doltlite takes the only one
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _creds(sql: str, *args: str) -> str:
    """One credential call (dolt_creds, dolt_creds_new) on a throwaway doltlite connection."""
    from ..runtime import doltlite_boot  # noqa: F401  (doltlite before sqlite3: dolt_creds is doltlite's)
    import sqlite3
    connection = sqlite3.connect(":memory:")
    try:
        return str(connection.execute(sql, args).fetchone()[0])
    except sqlite3.Error as e:
        raise StorageError(f"credential: {e}") from e
    finally:
        connection.close()


def _ids() -> list[str]:
    listing = _creds("SELECT dolt_creds('list')")
    return [] if listing.startswith("no credentials") else listing.split()[2:]


def ensure(folder: Path) -> str:
    """The id of the credential kept in `folder`/creds, made now if there is none."""
    creds = folder / CREDS_DIR
    creds.mkdir(mode=0o700, exist_ok=True)
    with using(folder):
        ids = _ids()
        if not ids:
            _creds("SELECT dolt_creds_new()")
            ids = _ids()
    if len(ids) != 1:
        raise StorageError(f"{creds} should hold one credential, holds {len(ids)}")
    return ids[0]


def describe(folder: Path, kept: bool, *, export_to: Path | None = None) -> dict:
    """{"id", "public_key", "folder", "exported_to"}: the credential of the agent in `folder`
    (made if missing), its public JWK written into `export_to` (a server's --auth-keys
    folder) when given. `kept`: whether the agent's engine keeps one there (Location)."""
    if not kept:
        raise BadInput("agent", "a Dolt agent fetches and pushes as a Dolt user: name it in the remote URL "
                                "(http://USER@host:port/db) and give its password to the agent's sql-server "
                                "as DOLT_REMOTE_PASSWORD")
    if export_to is not None and not Path(export_to).is_dir():
        raise BadInput("export", f"{str(export_to)!r} does not exist: make the folder first"
                       if not Path(export_to).exists() else f"{str(export_to)!r} is not a folder")
    kid = ensure(folder)
    with using(folder):
        public = _creds("SELECT dolt_creds('export', ?)", kid)
        if export_to is not None:
            _creds("SELECT dolt_creds('export', ?, ?)", kid, str(Path(export_to).resolve()))
    return {"id": kid, "public_key": public, "folder": str(folder / CREDS_DIR),
            "exported_to": str(Path(export_to).resolve() / f"{kid}.jwk") if export_to is not None else None}
