"""`SqlRepository`: the repository port (store/port.py) over a DB-API connection.

It implements the port once; each backend says how its dialect spells
placeholders, time travel, upserts and the Dolt version-control calls, what
its commons looks like on disk, and what its engine's errors mean
(`_translate_error`, the one place that reads an engine's messages). SQL
lives here, in the backends and in schema/.
"""

from __future__ import annotations

import contextlib
import re
from importlib import resources
from operator import itemgetter
from typing import Any, Iterator, Mapping, Sequence

from ..errors import BadInput, CollectiveError, RowShapeMismatch, StorageError
from ..model import text_problem
from .names import author_arg, ident, quote  # noqa: F401  (the backends take them from here)
from .remotes import DoltRemotes
from .versioning import DoltVersionControl


def migrations(dialect: str) -> list[tuple[int, str]]:
    """(version, sql) for each file schema/<dialect>/NNN_name.sql (installed as
    collective.schema), in order."""
    folder = resources.files("collective.schema") / dialect
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


class SqlRepository(DoltRemotes, DoltVersionControl):
    """The port, implemented over a DB-API connection in autocommit mode: rows,
    transactions and schema here; Dolt's version control and remotes in the mixins.

    Subclasses set `engine`, `dialect` and `param` and implement the `_*` hooks
    (here and in the mixins).
    """

    engine = "abstract"
    dialect = "abstract"
    param = "?"

    def __init__(self, connection: Any):
        self.conn = connection
        self._depth = 0

    # --- dialect hooks -------------------------------------------------
    def _source(self, table: str, as_of: str | None) -> str:
        raise NotImplementedError

    def _vc_sql(self, name: str, count: int) -> str:
        """The statement that calls Dolt procedure `name` with `count` arguments."""
        raise NotImplementedError

    def _begin(self) -> None:
        raise NotImplementedError

    def _upsert_sql(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        raise NotImplementedError

    def _translate_error(self, error: Exception, *, remote: str | None = None,
                         branch: str | None = None) -> Exception:
        """The typed error for an engine's error. `remote` and `branch` name the remote
        call (fetch, push) that failed, if it was one."""
        return StorageError(str(error))

    # --- plain SQL -----------------------------------------------------
    def execute(self, sql: str, params: Sequence = (), *, remote: str | None = None,
                branch: str | None = None) -> Any:
        try:
            cursor = self.conn.cursor()
            if params:
                cursor.execute(sql, tuple(params))
            else:  # no params: a literal % (LIKE 'local_%') must reach the engine as is
                cursor.execute(sql)
            return cursor
        except UnicodeEncodeError as e:
            raise _unencodable(e) from e
        except Exception as e:  # the engine's own error types differ per driver
            if isinstance(e, CollectiveError):
                raise
            raise self._translate_error(e, remote=remote, branch=branch) from e

    def _vc(self, name: str, *args: str, remote: str | None = None, branch: str | None = None) -> list[tuple]:
        """Call a Dolt version-control procedure, e.g. _vc('commit', '-m', msg)."""
        return self.execute(self._vc_sql(name, len(args)), args, remote=remote, branch=branch).fetchall()

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
        columns, params = _batch(table, rows)
        sql = (f"INSERT INTO {quote(table)} ({', '.join(quote(c) for c in columns)}) "
               f"VALUES ({', '.join([self.param] * len(columns))})")
        return self._many(sql, params)

    def upsert(self, table: str, rows: Sequence[Mapping[str, Any]], key: Sequence[str]) -> int:
        if not rows:
            return 0
        columns, params = _batch(table, rows)
        return self._many(self._upsert_sql(table, columns, key), params)

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
            except UnicodeEncodeError as e:
                raise _unencodable(e) from e
            except Exception as e:
                raise self._translate_error(e) from e

    # --- schema --------------------------------------------------------
    def schema_version(self) -> int:
        if not self.table_exists("schema_version"):
            return 0
        return int(self.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_version") or 0)

    def applied_versions(self) -> set[int]:
        if not self.table_exists("schema_version"):
            return set()
        return {int(r["version"]) for r in self.select("schema_version", columns=("version",))}

    def table_exists(self, table: str) -> bool:
        raise NotImplementedError

    def migrate(self, *, author: str, now: str) -> list[int]:
        """Apply pending migrations, each as its own transaction and Dolt commit. Pending is
        every version not yet recorded, not only those above the highest: a branch made
        before a lower-numbered migration landed still gets it."""
        done = self.applied_versions()
        pending = [(version, sql) for version, sql in migrations(self.dialect) if version not in done]
        # A new database takes the whole schema in one commit: it has no branch that could
        # lack a single step, and each Dolt commit costs more than the statements it records.
        steps = [pending] if not done and pending else [[one] for one in pending]
        for step in steps:
            with self.transaction():
                for _, sql in step:
                    for statement in split_statements(sql):
                        self.execute(statement)
                self.insert("schema_version", [{"version": version, "applied_at": now} for version, _ in step])
                self.commit(_migration_message([version for version, _ in step]), author=author)
        self.ensure_local_tables()
        return [version for version, _ in pending]

    def ensure_local_tables(self) -> None:
        """The unversioned local_% tables (dolt_ignore) live in each branch's working
        set, not in commits: create them on the checked-out branch when it lacks them."""
        created = set()
        with self.transaction():  # one write of the working set, not one per table
            for _, sql in migrations(self.dialect):
                for statement in split_statements(sql):
                    match = re.match(r"CREATE TABLE IF NOT EXISTS (local_\w+)", statement, re.IGNORECASE)
                    if match and not self.table_exists(match.group(1)):
                        self.execute(statement)
                        created.add(match.group(1))
                    index = re.match(r"CREATE INDEX IF NOT EXISTS \w+ ON (local_\w+)", statement, re.IGNORECASE)
                    if index and index.group(1) in created:
                        self.execute(statement)

    def close(self) -> None:
        if self.conn is not None:  # idempotent: pymysql refuses a second close
            self.conn.close()
            self.conn = None


def _migration_message(versions: list[int]) -> str:
    if len(versions) == 1:
        return f"schema: migrate to version {versions[0]}"
    return f"schema: create at version {versions[-1]} (migrations {versions[0]}-{versions[-1]})"


def _unencodable(error: UnicodeEncodeError) -> BadInput:
    """Text no engine can take (a lone surrogate) that got past the callers' checks."""
    text = error.object if isinstance(error.object, str) else ""
    return BadInput("text", text_problem(text) or "not valid UTF-8")


def _batch(table: str, rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[tuple]]:
    """The columns of a batch and each row's values in their order. The rows must all have
    the same columns: RowShapeMismatch otherwise, before anything is written (taking the
    first row's columns for all would fail on a row that lacks one, or drop a column that
    only later rows have, without a word)."""
    columns = list(rows[0])
    width = len(columns)
    try:  # as many columns as the first row, each of them present: the same columns (and cheap)
        if all(len(row) == width for row in rows):
            return columns, _params(rows, columns)
    except KeyError:
        pass
    every = set.intersection(*(set(row) for row in rows))
    raise RowShapeMismatch(table, sorted(set().union(*(set(row) for row in rows)) - every))


def _params(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> list[tuple]:
    """Each row's values in column order (itemgetter: a big pull writes a million values)."""
    if len(columns) == 1:
        return [(row[columns[0]],) for row in rows]
    values = itemgetter(*columns)
    return [values(row) for row in rows]
