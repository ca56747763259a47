"""The scale-out backend: a Dolt sql-server, spoken to over pymysql.

Same port as the embedded backend; the differences are the dialect (`%s`
placeholders, `AS OF`, `CALL DOLT_*` procedures, ON DUPLICATE KEY) and the
server's ways: pymysql connects with autocommit on and transactions are
explicit; a conflicting merge inside a transaction reports its conflicts
instead of rolling back; concurrent transactions on one branch may fail with
error 1213, raised as SerializationFailure. A file commons is a folder (Dolt makes
it, empty, when the remote is added); another sql-server's remotesapi serves
one over http.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import re
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Sequence
from urllib.parse import quote as url_quote, unquote, urlparse

from ..errors import (BadInput, CommonsRefused, NoCommonsYet, NonFastForward, NotACommons, NotFound, RemoteUnreachable,
                      SerializationFailure, ServerUnreachable, StorageError)
from .port import Commit, Conflict
from .sql import SqlRepository, author_arg, ident

SERIALIZATION_FAILURE = 1213
CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class ServerAddress:
    host: str
    port: int
    user: str
    password: str
    database: str

    @classmethod
    def parse(cls, url: str, *, field: str = "dolt-url") -> "ServerAddress":
        """mysql://user:pass@host:port/db (dolt:// is the same)."""
        parsed = urlparse(url)
        if parsed.scheme not in ("mysql", "dolt") or not parsed.hostname or not parsed.path.strip("/"):
            raise BadInput(field, f"expected mysql://user:pass@host:port/db, got {url!r}")
        try:
            port = parsed.port or 3306
        except ValueError as e:
            raise BadInput(field, f"bad port in {url!r}") from e
        return cls(parsed.hostname, port, unquote(parsed.username or "root"),
                   unquote(parsed.password or ""), parsed.path.strip("/"))

    def url(self) -> str:
        """For showing: the password masked."""
        secret = ":***" if self.password else ""
        return f"mysql://{self.user}{secret}@{self.host}:{self.port}/{self.database}"

    def dsn(self) -> str:
        """For opening: what `parse` reads back."""
        secret = ":" + url_quote(self.password, safe="") if self.password else ""
        return f"mysql://{url_quote(self.user, safe='')}{secret}@{self.host}:{self.port}/{self.database}"


def database_name(agent_id: str, home: Path | None = None) -> str:
    """Agent ids may hold '-' and '.', which MySQL names would need quoting for;
    with a home, its hash keeps agents of different homes on one server apart."""
    name = re.sub(r"[^a-z0-9_]", "_", agent_id)
    if home is None:
        return "cmem_" + name
    tag = hashlib.sha256(str(home).encode()).hexdigest()[:10]
    return f"cmem_{tag}_{name}"[:64]


def connect(address: ServerAddress, *, database: str | None = None):
    import pymysql  # imported lazily: the embedded default never needs it

    try:
        return pymysql.connect(host=address.host, port=address.port, user=address.user,
                               password=address.password, database=database, autocommit=True,
                               connect_timeout=CONNECT_TIMEOUT_S, charset="utf8mb4",
                               ssl_disabled=_loopback(address.host))
    except pymysql.err.OperationalError as e:
        raise ServerUnreachable(f"cannot reach the Dolt sql-server at {address.host}:{address.port}: {e.args[-1]}") from e


def _loopback(host: str) -> bool:
    """TLS to a server on this machine protects nothing, and pymysql's opportunistic TLS
    loads the system's CA store on every connection (about 0.15 s)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def create_database(address: ServerAddress) -> None:
    on_server(address, f"CREATE DATABASE IF NOT EXISTS `{ident(address.database)}`")


def drop_database(address: ServerAddress) -> None:
    on_server(address, f"DROP DATABASE IF EXISTS `{ident(address.database)}`")


def on_server(address: ServerAddress, statement: str, params: Sequence = ()) -> None:
    """One statement on the server itself, outside any database."""
    conn = connect(address)
    try:
        with conn.cursor() as cursor:
            cursor.execute(statement, tuple(params) or None)
    finally:
        conn.close()


def database_exists(address: ServerAddress) -> bool:
    conn = connect(address)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SHOW DATABASES LIKE %s", (address.database,))
            return cursor.fetchone() is not None
    finally:
        conn.close()


class DoltServerRepository(SqlRepository):
    engine = "dolt"
    dialect = "mysql"
    param = "%s"
    SERVER_PATH = re.compile(r"(?:/[A-Za-z0-9_.-]+)+")  # another sql-server's remotesapi: /DATABASE
    SERVER_FORM = "http(s)://[USER@]host:port/DATABASE"

    def __init__(self, address: ServerAddress):
        self.address = address
        super().__init__(connect(address, database=address.database))

    # --- dialect hooks -------------------------------------------------
    def _source(self, table: str, as_of: str | None) -> str:
        if as_of is None:
            return f"`{ident(table)}`"
        if not re.fullmatch(r"[A-Za-z0-9._/@~^-]+", as_of):
            raise NotFound("ref", f"no branch, tag or commit named {as_of!r}")
        return f"`{ident(table)}` AS OF '{as_of}'"

    def _vc_sql(self, name: str, count: int) -> str:
        return f"CALL DOLT_{ident(name).upper()}({', '.join(['%s'] * count)})"

    def _begin(self) -> None:
        self.execute("START TRANSACTION")

    def _upsert_sql(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        cols = ", ".join(f"`{ident(c)}`" for c in columns)
        updates = [f"`{ident(c)}` = VALUES(`{ident(c)}`)" for c in columns if c not in key]
        if not updates:  # nothing to change on a clash: a no-op assignment keeps the row
            updates = [f"`{ident(key[0])}` = `{ident(key[0])}`"]
        return (f"INSERT INTO `{ident(table)}` ({cols}) VALUES ({', '.join(['%s'] * len(columns))}) "
                f"ON DUPLICATE KEY UPDATE {', '.join(updates)}")

    def _diff_source(self, table: str, old: str, new: str) -> tuple[str, tuple]:
        return "SELECT * FROM dolt_diff(%s, %s, %s)", (old, new, table)

    def _date_text(self, value: Any) -> str:
        return _date(value)

    def _translate_error(self, error: Exception, *, remote: str | None = None,
                         branch: str | None = None) -> Exception:
        import pymysql

        code = error.args[0] if error.args and isinstance(error.args[0], int) else None
        text = str(error.args[-1]) if error.args else str(error)
        lowered = text.lower()
        if isinstance(error, (pymysql.err.InterfaceError, pymysql.err.OperationalError)) and code in (2003, 2006, 2013, None):
            return ServerUnreachable(f"lost the Dolt sql-server: {text}")
        if code == SERIALIZATION_FAILURE or "serialization failure" in lowered:
            return SerializationFailure(text)
        if remote is not None:
            remote_error = self._remote_error(text, lowered, remote, branch)
            if remote_error is not None:
                return remote_error
        if ("branch not found" in lowered or "invalid ref spec" in lowered or "ref not found" in lowered
                or "invalid revision" in lowered
                or "did not match any table" in lowered):  # checkout of a name that is no branch
            return NotFound("ref", text)
        if "unknown remote" in lowered or "remote not found" in lowered:
            return NotFound("remote", text)
        return StorageError(text)

    def _remote_error(self, text: str, lowered: str, remote: str, branch: str | None) -> Exception | None:
        """What a failed fetch or push of `remote` means, when it is about the remote."""
        if "http/1.1 header" in lowered:  # a doltlite commons server answered in plain HTTP
            return NotACommons(remote, f"{remote!r} is not a dolt commons "
                                       "(doltlite and Dolt agents cannot share a commons)")
        if "corrupt manifest" in lowered:
            return NotACommons(remote, f"{remote!r} is not a commons database")
        if "unauthenticated" in lowered or "permissiondenied" in lowered or "dolt_remote_password" in lowered:
            return CommonsRefused(remote, text)
        if "database not found" in lowered:  # a remotesapi server without that database
            return NoCommonsYet(remote, self.remotes().get(remote, remote))
        if ("connection refused" in lowered or "could not connect" in lowered or "dial tcp" in lowered
                or "could not be accessed" in lowered or "no such file or directory" in lowered):
            return RemoteUnreachable(remote, text)
        if branch is not None and ("fast-forward" in lowered or "no common ancestor" in lowered
                                   or "behind" in lowered):
            return NonFastForward(branch, detail=text)
        return None

    def _remote_vc(self, name: str, remote: str, *args: str, branch: str | None = None) -> list[tuple]:
        """A remotesapi URL naming a user (http://USER@host:port/db) fetches and pushes as that
        Dolt user; Dolt takes the password from the server's own DOLT_REMOTE_PASSWORD."""
        user = urlparse(self._remote_url(remote)).username
        login = ("--user", unquote(user)) if user else ()
        return self._vc(name, *login, remote, *args, remote=remote, branch=branch)

    def _file_commons(self, remote: str, path: Path) -> bool:
        if path.is_file():
            from .doltlite import is_doltlite_file
            kind = "a doltlite commons" if is_doltlite_file(path) else "a file, not a Dolt remote folder"
            raise NotACommons(remote, f"{path} is {kind}; a Dolt agent needs a Dolt remote (a folder or remotesapi URL)")
        if ".dolt" in path.parts:  # .dolt/noms is a remote folder's format: a push would write into that database
            raise NotACommons(remote, f"{path} is inside a Dolt database's own storage, not a commons")
        return path.is_dir() and any(path.iterdir())

    def _engine_file_url(self, path: Path) -> str:
        return path.as_uri()  # Dolt's remote add percent-decodes what it is given

    def _check_file_path(self, path: Path) -> None:
        # Dolt keeps the decoded path but reads it as a URL again at each fetch and push: a '%'
        # would be decoded twice (or refused), a '?' or '#' cut the path short
        if any(c in str(path) for c in "%?#"):
            raise BadInput("url", f"a Dolt agent cannot use a file remote whose path holds '%', '?' or '#': {path}")

    def _make_file_commons(self, path: Path) -> None:
        path.mkdir(exist_ok=True)  # Dolt pushes into a folder but does not make it

    # --- what differs from the embedded engine ---------------------------
    def table_exists(self, table: str) -> bool:
        return bool(self.scalar("SELECT COUNT(*) FROM information_schema.tables "
                                "WHERE table_schema = DATABASE() AND table_name = %s", (table,)))

    def log(self, ref: str | None = None, limit: int | None = None) -> list[Commit]:
        sql = "SELECT commit_hash, committer, email, date, message FROM dolt_log(%s)"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = self.execute(sql, (ref or self.active_branch(),)).fetchall()
        return [Commit(h, a, e, _date(d), m) for h, a, e, d, m in rows]

    def merge(self, ref: str, *, message: str, author: str) -> list[Conflict]:
        if not self.in_transaction:
            raise StorageError("merge must run inside a transaction")
        rows = self._vc("merge", ref, "-m", message, "--author", author_arg(author))
        if rows and int(rows[0][2] or 0) > 0:
            return self.conflicts()
        return []

    def gc(self) -> None:
        """The server ends the session that ran DOLT_GC: reconnect on the same branch."""
        branch = self.active_branch()
        try:
            self._vc("gc")
        except (StorageError, ServerUnreachable):  # the session it ended reports so
            pass
        self.conn.close()
        self.conn = connect(self.address, database=self.address.database)
        self.checkout(branch)


def _date(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value)
