"""The repository port: what every storage backend offers, and the values it returns.

Services program against `Repository`; `open_repository(url)` (store/__init__)
picks the backend. Two implement it today, both over DB-API in store/sql.py:
doltlite (embedded, the default) and a Dolt sql-server. Errors are typed and
made by the backends (collective.errors); nothing above store/ reads an
engine's messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ContextManager, Iterator, Mapping, Protocol, Sequence, runtime_checkable


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
    """One row's change between two commits: kind is added, modified or removed. `same`:
    whether the columns a narrow diff compared hold what they held (see Repository.diff)."""

    kind: str
    old: dict | None
    new: dict | None
    same: bool = False


@dataclass(frozen=True)
class Conflict:
    """One row two branches changed differently; a side is None where that side has no row."""

    table: str
    base: dict | None
    ours: dict | None
    theirs: dict | None


@runtime_checkable
class Repository(Protocol):
    """One agent's versioned database.

    Rows: `where` maps columns to a value (equality), None (IS NULL) or a
    list (IN; an empty list matches nothing). `as_of` reads a commit, branch,
    tag or tracking ref ('origin/main'); an unknown one raises NotFound.
    Writes join the caller's transaction, or are one transaction each.
    Dolt commits persist on their own: inside a transaction, commit last.
    """

    engine: str    # "doltlite" or "dolt": which commons it can share
    dialect: str   # the schema/<dialect>/ folder its migrations come from

    # --- rows ----------------------------------------------------------
    def transaction(self) -> ContextManager[None]:
        """All or nothing; an exception inside rolls every write back. Nested uses join the outer one."""

    @property
    def in_transaction(self) -> bool: ...

    def select(self, table: str, where: Mapping[str, Any] | None = None, *,
               columns: Sequence[str] | None = None, as_of: str | None = None,
               order_by: str | None = None, limit: int | None = None) -> list[dict]:
        """Rows as dicts; order_by is 'column' or 'column DESC'."""

    def select_in(self, table: str, column: str, values: Sequence[Any], *,
                  columns: Sequence[str] | None = None, as_of: str | None = None,
                  chunk: int = 500) -> list[dict]:
        """Rows whose `column` is one of `values`, however many (asked `chunk` at a time)."""

    def count(self, table: str, where: Mapping[str, Any] | None = None, *, as_of: str | None = None) -> int: ...

    def insert(self, table: str, rows: Sequence[Mapping[str, Any]]) -> int:
        """All rows or none (a clash on the key raises StorageError). Every row of the batch has
        the same columns: rows that differ raise RowShapeMismatch (naming the table and the
        columns only some rows have) and nothing is written."""

    def upsert(self, table: str, rows: Sequence[Mapping[str, Any]], key: Sequence[str]) -> int:
        """Insert, or overwrite the given columns of the row with the same `key`. All rows or
        none; rows of one batch have the same columns, else RowShapeMismatch as for `insert`."""

    def update(self, table: str, values: Mapping[str, Any], where: Mapping[str, Any]) -> int:
        """Rows changed; an empty `where` raises ValueError."""

    def delete(self, table: str, where: Mapping[str, Any]) -> int:
        """Rows removed; an empty `where` raises ValueError."""

    # --- schema --------------------------------------------------------
    def schema_version(self) -> int:
        """The last migration applied on the checked-out branch (0 on an empty database)."""

    def migrate(self, *, author: str, now: str) -> list[int]:
        """Apply pending migrations, each in its own transaction and commit; returns their
        versions ([] when up to date). Also ensures the local tables."""

    def ensure_local_tables(self) -> None:
        """Create the unversioned local_% tables on the checked-out branch when it lacks them."""

    # --- commits and branches --------------------------------------------
    def commit(self, message: str, *, author: str, allow_empty: bool = False) -> str:
        """Commit every versioned table on the checked-out branch; returns the new head.
        Nothing to commit raises StorageError unless allow_empty."""

    def active_branch(self) -> str: ...

    def branches(self) -> dict[str, str]:
        """Local branch -> head."""

    def remote_branches(self) -> dict[str, str]:
        """Tracking ref 'remote/branch' -> head, as of the last fetch."""

    def create_branch(self, name: str, *, start: str | None = None) -> None:
        """A new branch at `start` (default: the current head); an existing name raises StorageError."""

    def create_branch_at(self, name: str, start: str) -> None:
        """Create `name`, or move it, to point at `start`."""

    def checkout(self, name: str) -> None:
        """Switch this connection to branch `name`; an unknown one raises NotFound."""

    def on_branch(self, name: str) -> ContextManager[None]:
        """Work on another branch for the duration, then return to the current one."""

    def head(self, ref: str | None = None) -> str:
        """The commit hash of `ref`, by default of the checked-out branch."""

    def resolve(self, ref: str) -> str:
        """A branch, tracking ref, tag or commit hash -> commit hash; NotFound otherwise."""

    def log(self, ref: str | None = None, limit: int | None = None) -> list[Commit]:
        """Commits reachable from `ref` (default: the checked-out branch), newest first."""

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether commit `ancestor` is in the history of `descendant` (a commit is its own
        ancestor; Dolt's merge base). An `ancestor` this database does not hold is not one;
        an unknown `descendant` raises NotFound."""

    def merge_base(self, a: str, b: str) -> str | None:
        """The newest commit in the histories of both commits (refs); None when they share
        none. Every doltlite database starts from the same empty commit: there, databases
        made apart share at least that one."""

    def diff(self, old: str, new: str, table: str, *, columns: Sequence[str] | None = None,
             compare: Sequence[str] = ()) -> Iterator[RowChange]:
        """Row changes of `table` from `old` to `new` (commits or refs). Narrowed by `columns`
        (a table keyed by `id`): the row after holds only those, the row before only its id,
        and `same` says whether the `compare` columns hold the same values on both sides (the
        engine compares them, so neither side's values are read: a memory's vector is 1.5 KB)."""

    def row_history(self, table: str, column: str, value: Any, *, limit: int | None = None) -> list[dict]:
        """The commits on the checked-out branch that changed the rows of `table` whose `column`
        is `value`, newest first: {"commit", "committer", "email", "date", "message", "kind"
        (added, modified or removed), "row" (the row after the change; before it when removed)}."""

    # --- merging ---------------------------------------------------------
    def merge(self, ref: str, *, message: str, author: str) -> list[Conflict]:
        """Merge `ref` into the checked-out branch, inside the caller's transaction
        (StorageError outside one). A clean merge commits and returns []; otherwise the
        conflicts are returned for the caller to settle with `resolve_conflicts` (or by
        writing rows) before it commits."""

    def resolve_conflicts(self, table: str, side: str) -> None:
        """Settle every conflict of `table` by taking 'ours' or 'theirs'."""

    def conflicts(self) -> list[Conflict]:
        """The conflicts a merge left in the current transaction."""

    # --- remotes ---------------------------------------------------------
    def remotes(self) -> dict[str, str]:
        """Remote name -> URL as the engine keeps it (a file remote's path decoded, literal)."""

    def validate_remote_url(self, url: str) -> str:
        """The URL if this engine can use it as a commons: file:///abs/path, percent-decoded
        (its parent folder must exist), or http(s)://host[:port]/name (a port from 1 to 65535,
        no query or fragment). Otherwise BadInput (field 'url'), or NotACommons when the path
        holds something else: a commons of the other engine, an agent's own database."""

    def commons_exists(self, url: str) -> bool | None:
        """True when a commons of this engine is at a file remote's path, False when nothing
        is there yet (the first push makes it), None for a server URL (only a fetch can tell).
        NotACommons when the path holds something else."""

    def add_remote(self, name: str, url: str, *, kept: bool = False) -> None:
        """Add a remote after `validate_remote_url`, or, `kept`, with a URL as `remotes()` gave
        it (a file remote's path literal); a name in use raises StorageError."""

    def remove_remote(self, name: str) -> None:
        """Forget a remote (its tracking refs go with it); NotFound when there is none by that name."""

    def fetch(self, remote: str, branch: str | None = None) -> dict[str, str]:
        """Update the tracking refs of `remote` (all its branches, or `branch`); returns
        branch -> head for that remote.

        NotFound: no remote of that name, or `branch` is not on it.
        RemoteUnreachable: it cannot be reached; its subclass NoCommonsYet: it holds no
        commons yet (a file remote's path, a server without that database).
        NotACommons: it is not a commons database, or a commons of the other engine.
        """

    def remote_head(self, remote: str, branch: str) -> str:
        """The remote's head of `branch`, fetched now; "" when the branch (or the commons) is
        not there."""

    def push(self, remote: str, branch: str, *, expect: str | None = None, force: bool = False) -> None:
        """Publish local `branch` as the remote's `branch`.

        With `expect` (the remote head the caller last saw, or "" for "the branch must not
        exist there yet") the push is a compare-and-swap: when the remote's head, fetched
        first, differs, NonFastForward(branch, ours, theirs) is raised and nothing is
        pushed. A push landing between that fetch and ours is still refused by the engine
        unless `force`. Without `expect` the engine refuses a non-fast-forward unless
        `force`, as NonFastForward with both heads when they can be learned.
        A file remote with no commons yet gets one. Also raises NotFound (an unknown
        remote or local branch), RemoteUnreachable and NotACommons as `fetch` does.
        """

    # --- upkeep ----------------------------------------------------------
    def gc(self) -> None:
        """Drop storage no commit or working set refers to; the checked-out branch stays."""

    def close(self) -> None:
        """Idempotent."""
