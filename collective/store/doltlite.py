"""The embedded default backend: doltlite, a SQLite whose storage is Dolt's.

`import doltlite` must run before anything imports `sqlite3`: it preloads
libdoltlite so that stdlib sqlite3 connections speak Dolt. This module is the
one place that knows it (and the child-process pitfall below).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

import doltlite  # noqa: E402  (must precede sqlite3)
import sqlite3  # noqa: E402

from ..errors import NonFastForward, NotFound, RemoteUnreachable, StorageError  # noqa: E402
from .base import Commit, Conflict, SqlRepository, author_arg, ident, quote  # noqa: E402

# The bootstrap marks the environment so it never runs twice; child processes
# inherit the mark, skip the preload and silently get plain SQLite. Clearing
# it here makes every child (subprocess, joblib/loky worker) bootstrap itself.
BOOTSTRAP_MARKER = "_DOLTLITE_BOOTSTRAPPED"
os.environ.pop(BOOTSTRAP_MARKER, None)

BUSY_TIMEOUT_S = 30.0
MAGIC = b"CTLD"


def library_path() -> str:
    return doltlite.libdoltlite_path()


def is_doltlite_file(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False


class DoltliteRepository(SqlRepository):
    dialect = "sqlite"
    param = "?"

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

    def _vc(self, name: str, *args: str) -> list[tuple]:
        placeholders = ", ".join("?" * len(args))
        return self.execute(f"SELECT dolt_{ident(name)}({placeholders})", args).fetchall()

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

    def _translate_error(self, error: Exception) -> Exception:
        text = str(error)
        lowered = text.lower()
        if "ref not found" in lowered or "invalid ref spec" in lowered or "invalid dolt_log revision" in lowered:
            return NotFound("ref", text)
        if "remote not found" in lowered:
            return NotFound("remote", text)
        if "failed to open remote" in lowered or "connection refused" in lowered or "could not connect" in lowered:
            return RemoteUnreachable(text)
        if "fast-forward" in lowered or "fast forward" in lowered or "non-fast" in lowered:
            return NonFastForward("?", text)
        return StorageError(text)

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
