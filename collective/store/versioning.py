"""Dolt's version control over SQL: commits, branches, history, diff, merge and gc.

A mixin of `SqlRepository` (store/sql.py), which gives it `_vc`, `query`,
`scalar`, `param` and the transaction state.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from ..errors import NotFound, StorageError
from .names import author_arg, ident, quote
from .port import Commit, Conflict, RowChange


class DoltVersionControl:
    # --- dialect hooks -------------------------------------------------
    def _diff_source(self, table: str, old: str, new: str) -> tuple[str, tuple]:
        raise NotImplementedError

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

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether `ancestor` is in the history of `descendant` (a commit is its own ancestor)."""
        offered = self.resolve(descendant)
        try:
            taken = self.resolve(ancestor)
        except NotFound:
            return False  # a commit this database does not hold is in no history it holds
        return taken == offered or self.merge_base(taken, offered) == taken

    def merge_base(self, a: str, b: str) -> str | None:
        """The newest commit in the histories of both; None when they share none."""
        try:
            base = self.scalar(f"SELECT dolt_merge_base({self.param}, {self.param})", (a, b))
        except StorageError as e:
            if "no common ancestor" in str(e).lower():  # Dolt says so of unrelated histories
                return None
            raise
        return str(base) if base else None

    def diff(self, old: str, new: str, table: str, *, columns: Sequence[str] | None = None,
             compare: Sequence[str] = ()) -> Iterator[RowChange]:
        """Row changes of `table` from commit/ref `old` to `new` (port.Repository.diff)."""
        sql, params = self._diff_source(table, old, new)
        if columns is not None:
            yield from self._narrow_diff(sql, params, columns, compare)
            return
        for row in self.query(sql, params):
            before = {k[5:]: v for k, v in row.items() if k.startswith("from_") and k not in ("from_commit", "from_commit_date")}
            after = {k[3:]: v for k, v in row.items() if k.startswith("to_") and k not in ("to_commit", "to_commit_date")}
            kind = row["diff_type"]
            yield RowChange(kind, before if kind != "added" else None, after if kind != "removed" else None)

    def _narrow_diff(self, source: str, params: tuple, columns: Sequence[str],
                     compare: Sequence[str]) -> Iterator[RowChange]:
        """`diff` narrowed to `columns` of the row after (see the port)."""
        # equal on both sides and not null: a modified row's compared columns hold values
        same = " AND ".join(f"d.{quote('from_' + c)} = d.{quote('to_' + c)}" for c in compare) or "0 = 1"
        picked = ", ".join(f"d.{quote('to_' + c)} AS {quote(c)}" for c in columns)
        sql = (f"SELECT d.diff_type AS diff_type, d.from_id AS from_id, CASE WHEN {same} THEN 1 ELSE 0 END "
               f"AS same, {picked} FROM ({source}) d")
        for row in self.query(sql, params):
            kind, old_id, same = row.pop("diff_type"), row.pop("from_id"), bool(row.pop("same"))
            yield RowChange(kind, {"id": old_id} if kind != "added" else None, row if kind != "removed" else None,
                            same)

    def row_history(self, table: str, column: str, value: Any, *, limit: int | None = None) -> list[dict]:
        """Commits that changed the rows whose `column` is `value`, newest first (Dolt's
        dolt_diff_<table>, which walks the checked-out branch, joined to dolt_log for the message)."""
        p, col = self.param, ident(column)
        sql = (f"SELECT d.*, l.committer AS log_committer, l.email AS log_email, l.message AS log_message "
               f"FROM dolt_diff_{ident(table)} d LEFT JOIN dolt_log l ON l.commit_hash = d.to_commit "
               f"WHERE (d.to_{col} = {p} OR d.from_{col} = {p}) AND d.to_commit <> 'WORKING'")
        out = []
        for row in self.query(sql, (value, value)):
            side = "from_" if row["diff_type"] == "removed" else "to_"
            out.append({"commit": row["to_commit"], "committer": row["log_committer"], "email": row["log_email"],
                        "date": self._date_text(row["to_commit_date"]), "message": row["log_message"],
                        "kind": row["diff_type"],
                        "row": {k[len(side):]: v for k, v in row.items()
                                if k.startswith(side) and k not in (f"{side}commit", f"{side}commit_date")}})
        out.sort(key=lambda change: change["date"], reverse=True)  # stable: the engine's order within a second
        return out[:limit] if limit is not None else out

    def _date_text(self, value: Any) -> str:
        return str(value)

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

    def gc(self) -> None:
        self._vc("gc")
