"""The embedded default backend: doltlite, a SQLite whose storage is Dolt's.

A doltlite database, and a doltlite commons, is one file starting with
b"CTLD"; a file remote is such a file (the first push creates it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from ..runtime import doltlite_boot  # noqa: F401  (doltlite before sqlite3)
import doltlite  # noqa: E402
import sqlite3  # noqa: E402

from ..errors import CommonsRefused, NoCommonsYet, NonFastForward, NotACommons, NotFound, RemoteUnreachable, StorageError  # noqa: E402
from .port import Commit, Conflict  # noqa: E402
from .served_folder import DATABASE  # noqa: E402
from .sql import SqlRepository, author_arg, ident, quote  # noqa: E402

# What the engine says when a push is behind the remote's branch, or lost a race to
# another push ("push failed (remote refs changed)"): both are a NonFastForward.
NON_FAST_FORWARD = ("fast-forward", "fast forward", "remote refs changed", "no common ancestor")

BUSY_TIMEOUT_S = 30.0
MAGIC = b"CTLD"


def library_path() -> str:
    return doltlite.libdoltlite_path()


def holds_local_tables(path: Path) -> bool:
    """Whether the doltlite file at `path` has the unversioned local_% tables: per-machine
    state that only an agent's own database has (a push carries commits, never them)."""
    connection = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)
    try:
        return connection.execute(r"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name LIKE 'local\_%' "
                                  r"ESCAPE '\' LIMIT 1").fetchone() is not None
    finally:
        connection.close()


def is_doltlite_file(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False


class DoltliteRepository(SqlRepository):
    engine = "doltlite"
    dialect = "sqlite"
    param = "?"
    SERVER_PATH = re.compile("/" + DATABASE.pattern)  # `cmem serve-commons` serves the NAME.db files of a folder
    SERVER_FORM = "http(s)://host:port/NAME.db"

    def __init__(self, path: str | Path, *, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise NotFound("database", f"no database at {self.path}")
        if self.path.exists() and not is_doltlite_file(self.path):
            raise StorageError(f"{self.path} is not a doltlite database")
        connection = sqlite3.connect(str(self.path), isolation_level=None,
                                     timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        super().__init__(connection)
        try:
            self.scalar("SELECT dolt_version()")
        except StorageError as e:
            connection.close()
            raise StorageError("sqlite3 is plain SQLite here: import collective before sqlite3") from e

    def _source(self, table: str, as_of: str | None) -> str:
        if as_of is None:
            return quote(table)
        if not re.fullmatch(r"[A-Za-z0-9._/@~^-]+", as_of):
            raise NotFound("ref", f"no branch, tag or commit named {as_of!r}")
        return f"dolt_at_{ident(table)}('{as_of}')"

    def _vc_sql(self, name: str, count: int) -> str:
        return f"SELECT dolt_{ident(name)}({', '.join('?' * count)})"

    def _begin(self) -> None:
        self.execute("BEGIN IMMEDIATE")

    def _upsert_sql(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        cols = ", ".join(quote(c) for c in columns)
        updates = ", ".join(f"{quote(c)} = excluded.{quote(c)}" for c in columns if c not in key)
        conflict = "DO NOTHING" if not updates else f"DO UPDATE SET {updates}"
        return (f"INSERT INTO {quote(table)} ({cols}) VALUES ({', '.join('?' * len(columns))}) "
                f"ON CONFLICT ({', '.join(quote(k) for k in key)}) {conflict}")

    def _diff_source(self, table: str, old: str, new: str) -> tuple[str, tuple]:
        return f"SELECT * FROM dolt_diff_{ident(table)}(?, ?)", (old, new)

    def _translate_error(self, error: Exception, *, remote: str | None = None,
                         branch: str | None = None) -> Exception:
        text = str(error)
        lowered = text.lower()
        if ("ref not found" in lowered or "invalid ref spec" in lowered or "invalid dolt_log revision" in lowered
                or "no such branch" in lowered):
            return NotFound("ref", text)
        if "remote not found" in lowered:
            return NotFound("remote", text)
        if remote is None:
            return StorageError(text)
        if lowered == "not found":  # an http commons server has no such database (yet)
            return NoCommonsYet(remote, self.remotes().get(remote, remote))
        if lowered in ("unauthorized", "forbidden"):
            return CommonsRefused(remote, "the commons does not know this agent's credential "
                                          "(its operator adds it: cmem credential --export AUTH_KEYS_DIR)")
        if "failed to open remote" in lowered or "connection refused" in lowered or "could not connect" in lowered:
            if self.remotes().get(remote, "").startswith("https:"):  # TLS fails with the same words
                text += " (or its certificate is not trusted: a private one needs DOLTLITE_CA_FILE)"
            return RemoteUnreachable(remote, text)
        if lowered == "internal error" and self.remotes().get(remote, "").startswith("http"):
            return StorageError(f"the commons server failed: {text} (it answers so to a push to a commons it "
                                "may not create: start it with --allow-create, or check its log)")
        if "not a database" in lowered:
            return NotACommons(remote, f"{remote!r} is not a commons database")
        if "remote request failed" in lowered:  # a Dolt remotesapi answered in gRPC
            return NotACommons(remote, f"{remote!r} is not a doltlite commons "
                                       "(doltlite and Dolt agents cannot share a commons)")
        if branch is not None and any(m in lowered for m in NON_FAST_FORWARD):
            return NonFastForward(branch, detail=text)
        return StorageError(text)

    def _remote_vc(self, name: str, remote: str, *args: str, branch: str | None = None) -> list[tuple]:
        from . import credentials  # the agent's credential lives beside its database
        with credentials.using(self.path.parent):
            return super()._remote_vc(name, remote, *args, branch=branch)

    def _file_commons(self, remote: str, path: Path) -> bool:
        if path.is_dir():
            raise NotACommons(remote, f"{path} is a Dolt remote folder; a doltlite agent needs a doltlite commons file")
        if not path.exists() or path.stat().st_size == 0:
            # empty: what a first push killed before the engine wrote a byte leaves (the engine
            # pushes into it as into a new file); refused, it bricked the commons for every agent
            return False
        if not is_doltlite_file(path):
            raise NotACommons(remote, f"{remote!r} is not a commons database")
        try:
            private = holds_local_tables(path)
        except sqlite3.DatabaseError as e:
            if getattr(e, "sqlite_errorname", "") not in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
                raise StorageError(f"cannot read {path}: {e}") from e
            raise NotACommons(remote, f"{remote!r} is not a commons database") from None  # CTLD, and junk after it
        if private:  # a push there would write into that agent's memory
            raise NotACommons(remote, f"{path} is an agent's own database, not a commons")
        return True

    def _engine_file_url(self, path: Path) -> str:
        return f"file://{path}"  # doltlite opens the text after file:// as it is, escapes and all

    def table_exists(self, table: str) -> bool:
        return bool(self.scalar("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)))

    def log(self, ref: str | None = None, limit: int | None = None) -> list[Commit]:
        sql = "SELECT commit_hash, committer, email, date, message FROM dolt_log(?)"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = self.execute(sql, (ref or self.active_branch(),)).fetchall()
        return [Commit(*row) for row in rows]

    def merge(self, ref: str, *, message: str, author: str) -> list[Conflict]:
        if not self.in_transaction:
            raise StorageError("merge must run inside a transaction")
        try:
            self._vc("merge", ref, "-m", message, "--author", author_arg(author))
        except StorageError as e:
            if "conflict" not in str(e).lower():
                raise
            return self.conflicts()
        return []
