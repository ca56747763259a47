"""The repository port: what every storage backend offers.

`Repository` is the contract the rest of the package programs against: rows,
transactions, branches, commits, log, diff, time travel, merge and remotes.
`SqlRepository` implements it once over a DB-API connection; each backend
only says how its dialect spells placeholders, time travel, upserts and the
Dolt version-control calls. SQL lives here, in the backends and in schema/.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from importlib import resources
from operator import itemgetter
import time
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

from ..errors import NonFastForward, NotFound, SerializationFailure, StorageError

T = TypeVar("T")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Commit:
    hash: str
    author: str
    email: str
    date: str
    message: str

    def to_dict(self) -> dict:
        return {"commit": self.hash, "author": self.author, "email": self.email,
                "date": self.date, "message": self.message}


@dataclass(frozen=True)
class RowChange:
    """One row's change between two commits: kind is added, modified or removed."""

    kind: str
    old: dict | None
    new: dict | None


@dataclass(frozen=True)
class Conflict:
    table: str
    base: dict | None
    ours: dict | None
    theirs: dict | None


def ident(name: str) -> str:
    """Table and column names come from code, never from users; check anyway."""
    if not _IDENT.fullmatch(name):
        raise ValueError(f"not an SQL identifier: {name!r}")
    return name


def author_arg(agent_id: str) -> str:
    """Commits are authored by the agent: `--author "id <id@cmem.local>"`."""
    return f"{agent_id} <{agent_id}@cmem.local>"


def quote(name: str) -> str:
    """A checked identifier in backticks, which SQLite and MySQL both accept
    (Dolt reserves words such as `vector`)."""
    return f"`{ident(name)}`"


def migrations(dialect: str) -> list[tuple[int, str]]:
    """(version, sql) for each file schema/<dialect>/NNN_name.sql, in order."""
    folder = resources.files("schema") / dialect
    found = []
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d{3})_[a-z0-9_]+\.sql", entry.name)
        if match:
            found.append((int(match.group(1)), entry.read_text(encoding="utf-8")))
    return sorted(found)


def split_statements(sql: str) -> list[str]:
    """Our schema files put one statement per `;` at a line end, no semicolons in strings."""
    body = "\n".join(line for line in sql.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in re.split(r";\s*(?:\n|$)", body) if s.strip()]


class SqlRepository:
    """The port, implemented over a DB-API connection in autocommit mode.

    Subclasses set `dialect` and implement the small `_*` hooks.
    """

    dialect = "abstract"
    param = "?"

    def __init__(self, connection: Any):
        self.conn = connection
        self._depth = 0

    # --- dialect hooks -------------------------------------------------
    def _source(self, table: str, as_of: str | None) -> str:
        raise NotImplementedError

    def _vc(self, name: str, *args: str) -> list[tuple]:
        """Call a Dolt version-control procedure, e.g. _vc('commit', '-m', msg)."""
        raise NotImplementedError

    def _begin(self) -> None:
        raise NotImplementedError

    def _upsert_sql(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        raise NotImplementedError

    def _diff_source(self, table: str, old: str, new: str) -> tuple[str, tuple]:
        raise NotImplementedError

    def _translate_error(self, error: Exception) -> Exception:
        return StorageError(str(error))

    # --- plain SQL -----------------------------------------------------
    def execute(self, sql: str, params: Sequence = ()) -> Any:
        try:
            cursor = self.conn.cursor()
            if params:
                cursor.execute(sql, tuple(params))
            else:  # no params: a literal % (LIKE 'local_%') must reach the engine as is
                cursor.execute(sql)
            return cursor
        except Exception as e:  # the engine's own error types differ per driver
            if isinstance(e, (StorageError, NotFound)):
                raise
            raise self._translate_error(e) from e

    def query(self, sql: str, params: Sequence = ()) -> list[dict]:
        cursor = self.execute(sql, params)
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def scalar(self, sql: str, params: Sequence = ()) -> Any:
        row = self.execute(sql, params).fetchone()
        return row[0] if row else None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing. Nested uses join the outer transaction.

        Dolt commits made inside persist on their own, so callers commit last.
        """
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._begin()
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self.execute("ROLLBACK")
            raise
        self._depth = 0
        self.execute("COMMIT")

    def atomic(self, work: Callable[[], T], *, attempts: int = 5) -> T:
        """Run work() in a transaction; run it again if the engine reports that a
        concurrent transaction on the same branch won (a serialization failure)."""
        for attempt in range(1, attempts + 1):
            try:
                with self.transaction():
                    return work()
            except SerializationFailure:
                if attempt == attempts or self._depth:
                    raise
                time.sleep(0.02 * attempt)
        raise AssertionError("unreachable")

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    # --- rows ----------------------------------------------------------
    def _where(self, where: Mapping[str, Any] | None) -> tuple[str, list]:
        if not where:
            return "", []
        parts, params = [], []
        for column, value in where.items():
            if value is None:
                parts.append(f"{quote(column)} IS NULL")
            elif isinstance(value, (list, tuple, set, frozenset)):
                values = list(value)
                if not values:
                    parts.append("1 = 0")
                    continue
                parts.append(f"{quote(column)} IN ({', '.join([self.param] * len(values))})")
                params.extend(values)
            else:
                parts.append(f"{quote(column)} = {self.param}")
                params.append(value)
        return " WHERE " + " AND ".join(parts), params

    def select(self, table: str, where: Mapping[str, Any] | None = None, *,
               columns: Sequence[str] | None = None, as_of: str | None = None,
               order_by: str | None = None, limit: int | None = None) -> list[dict]:
        cols = ", ".join(quote(c) for c in columns) if columns else "*"
        clause, params = self._where(where)
        sql = f"SELECT {cols} FROM {self._source(table, as_of)}{clause}"
        if order_by:
            column, _, direction = order_by.partition(" ")
            sql += f" ORDER BY {quote(column)} {'DESC' if direction.upper() == 'DESC' else 'ASC'}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self.query(sql, params)

    def select_in(self, table: str, column: str, values: Sequence[Any], *,
                  columns: Sequence[str] | None = None, as_of: str | None = None,
                  chunk: int = 500) -> list[dict]:
        rows: list[dict] = []
        values = list(values)
        for start in range(0, len(values), chunk):
            rows.extend(self.select(table, {column: values[start:start + chunk]},
                                    columns=columns, as_of=as_of))
        return rows

    def count(self, table: str, where: Mapping[str, Any] | None = None, *, as_of: str | None = None) -> int:
        clause, params = self._where(where)
        return int(self.scalar(f"SELECT COUNT(*) FROM {self._source(table, as_of)}{clause}", params))

    def insert(self, table: str, rows: Sequence[Mapping[str, Any]]) -> int:
        if not rows:
            return 0
        columns = list(rows[0])
        sql = (f"INSERT INTO {quote(table)} ({', '.join(quote(c) for c in columns)}) "
               f"VALUES ({', '.join([self.param] * len(columns))})")
        return self._many(sql, _params(rows, columns))

    def upsert(self, table: str, rows: Sequence[Mapping[str, Any]], key: Sequence[str]) -> int:
        if not rows:
            return 0
        columns = list(rows[0])
        sql = self._upsert_sql(table, columns, key)
        return self._many(sql, _params(rows, columns))

    def update(self, table: str, values: Mapping[str, Any], where: Mapping[str, Any]) -> int:
        if not where:
            raise ValueError("update needs a where clause")
        sets = ", ".join(f"{quote(c)} = {self.param}" for c in values)
        clause, params = self._where(where)
        return self.execute(f"UPDATE {quote(table)} SET {sets}{clause}", [*values.values(), *params]).rowcount

    def delete(self, table: str, where: Mapping[str, Any]) -> int:
        if not where:
            raise ValueError("delete needs a where clause")
        clause, params = self._where(where)
        return self.execute(f"DELETE FROM {quote(table)}{clause}", params).rowcount

    def _many(self, sql: str, params: list[tuple]) -> int:
        # All rows or none; in autocommit each row would also be its own (slow) commit.
        with self.transaction():
            try:
                cursor = self.conn.cursor()
                cursor.executemany(sql, params)
                return cursor.rowcount
            except Exception as e:
                raise self._translate_error(e) from e

    # --- schema --------------------------------------------------------
    def schema_version(self) -> int:
        if not self.table_exists("schema_version"):
            return 0
        return int(self.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_version") or 0)

    def table_exists(self, table: str) -> bool:
        raise NotImplementedError

    def migrate(self, *, author: str, now: str) -> list[int]:
        """Apply pending migrations, each as its own transaction and Dolt commit."""
        applied = []
        current = self.schema_version()
        for version, sql in migrations(self.dialect):
            if version <= current:
                continue
            with self.transaction():
                for statement in split_statements(sql):
                    self.execute(statement)
                self.insert("schema_version", [{"version": version, "applied_at": now}])
                self.commit(f"schema: migrate to version {version}", author=author)
            applied.append(version)
        self.ensure_local_tables()
        return applied

    def ensure_local_tables(self) -> None:
        """The unversioned local_% tables (dolt_ignore) live in each branch's working
        set, not in commits: create them on the checked-out branch when it lacks them."""
        created = set()
        for _, sql in migrations(self.dialect):
            for statement in split_statements(sql):
                match = re.match(r"CREATE TABLE IF NOT EXISTS (local_\w+)", statement, re.IGNORECASE)
                if match and not self.table_exists(match.group(1)):
                    self.execute(statement)
                    created.add(match.group(1))
                index = re.match(r"CREATE INDEX IF NOT EXISTS \w+ ON (local_\w+)", statement, re.IGNORECASE)
                if index and index.group(1) in created:
                    self.execute(statement)

    # --- version control -----------------------------------------------
    def commit(self, message: str, *, author: str, allow_empty: bool = False) -> str:
        """Stage every versioned table and commit; returns the new head."""
        args = ["-A", "-m", message, "--author", author_arg(author)]
        if allow_empty:
            args.append("--allow-empty")
        self._vc("commit", *args)
        return self.head()

    def active_branch(self) -> str:
        return str(self.scalar("SELECT active_branch()"))

    def branches(self) -> dict[str, str]:
        return {r["name"]: r["hash"] for r in self.query("SELECT name, hash FROM dolt_branches")}

    def remote_branches(self) -> dict[str, str]:
        """Tracking refs as 'remote/branch' -> hash."""
        out = {}
        for row in self.query("SELECT name, hash FROM dolt_remote_branches"):
            name = row["name"]
            out[name[len("remotes/"):] if name.startswith("remotes/") else name] = row["hash"]
        return out

    def create_branch(self, name: str, *, start: str | None = None) -> None:
        self._vc("branch", name, *([start] if start else []))

    def checkout(self, name: str) -> None:
        self._vc("checkout", name)

    def create_branch_at(self, name: str, start: str) -> None:
        """Create `name`, or move it, to point at `start`."""
        self._vc("branch", "-f", name, start)

    @contextlib.contextmanager
    def on_branch(self, name: str) -> Iterator[None]:
        """Work on another branch for a moment (checkout is per connection)."""
        previous = self.active_branch()
        self.checkout(name)
        try:
            yield
        finally:
            self.checkout(previous)

    def head(self, ref: str | None = None) -> str:
        return self.resolve(ref or self.active_branch())

    def resolve(self, ref: str) -> str:
        """A branch, tracking ref, tag or commit hash -> commit hash."""
        try:
            return str(self.scalar(f"SELECT dolt_hashof({self.param})", (ref,)))
        except StorageError as e:
            raise NotFound("ref", f"no branch, tag or commit named {ref!r}") from e

    def log(self, ref: str | None = None, limit: int | None = None) -> list[Commit]:
        raise NotImplementedError

    def diff(self, old: str, new: str, table: str) -> Iterator[RowChange]:
        """Row changes of `table` from commit/ref `old` to `new`."""
        sql, params = self._diff_source(table, old, new)
        for row in self.query(sql, params):
            before = {k[5:]: v for k, v in row.items() if k.startswith("from_") and k not in ("from_commit", "from_commit_date")}
            after = {k[3:]: v for k, v in row.items() if k.startswith("to_") and k not in ("to_commit", "to_commit_date")}
            kind = row["diff_type"]
            yield RowChange(kind, before if kind != "added" else None, after if kind != "removed" else None)

    def merge(self, ref: str, *, message: str, author: str) -> list[Conflict]:
        """Merge `ref` into the current branch inside the caller's transaction.

        Returns the conflicts left for the caller to resolve (write the rows,
        then `resolve_conflicts`), empty when the merge is clean.
        """
        raise NotImplementedError

    def resolve_conflicts(self, table: str, side: str) -> None:
        self._vc("conflicts_resolve", f"--{side}", table)

    def conflicts(self) -> list[Conflict]:
        out = []
        for row in self.query("SELECT * FROM dolt_conflicts"):
            table = row["table"]
            for c in self.query(f"SELECT * FROM dolt_conflicts_{ident(table)}"):
                def side(prefix: str, diff_key: str | None) -> dict | None:
                    if diff_key and c.get(diff_key) == "removed":
                        return None
                    values = {k[len(prefix):]: v for k, v in c.items()
                              if k.startswith(prefix) and k != diff_key}
                    return None if all(v is None for v in values.values()) else values
                out.append(Conflict(table, side("base_", None), side("our_", "our_diff_type"),
                                    side("their_", "their_diff_type")))
        return out

    # --- remotes -------------------------------------------------------
    def remotes(self) -> dict[str, str]:
        return {r["name"]: r["url"] for r in self.query("SELECT name, url FROM dolt_remotes")}

    def add_remote(self, name: str, url: str) -> None:
        self._vc("remote", "add", name, url)

    def remove_remote(self, name: str) -> None:
        self._vc("remote", "remove", name)

    def fetch(self, remote: str, branch: str | None = None) -> dict[str, str]:
        self._vc("fetch", remote, *([branch] if branch else []))
        prefix = remote + "/"
        return {k[len(prefix):]: v for k, v in self.remote_branches().items() if k.startswith(prefix)}

    def push(self, remote: str, branch: str, *, force: bool = False) -> None:
        try:
            self._vc("push", remote, branch, *(["--force"] if force else []))
        except NonFastForward as e:  # the engine's message does not name the branch
            raise NonFastForward(branch, str(e)) from e

    def gc(self) -> None:
        self._vc("gc")

    def close(self) -> None:
        if self.conn is not None:  # idempotent: pymysql refuses a second close
            self.conn.close()
            self.conn = None


def _params(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> list[tuple]:
    """Each row's values in column order (itemgetter: a big pull writes a million values)."""
    if len(columns) == 1:
        return [(row[columns[0]],) for row in rows]
    values = itemgetter(*columns)
    return [values(row) for row in rows]
