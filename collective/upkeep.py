"""Keeping an agent's database file small: doltlite appends chunks on every
transaction, committed or not, and `dolt_gc` gives them back (FIELD-NOTES)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import SerializationFailure
from .runtime.retry import retrying
from .store.tables import LocalState

if TYPE_CHECKING:
    from .store.port import Repository

COMMITS_SINCE_GC = "commits_since_gc"


class Upkeep:
    def __init__(self, repo: Repository, state: LocalState, *, gc_every: int):
        self.repo = repo
        self.state = state
        self.gc_every = gc_every

    def after_commit(self) -> None:
        """Every gc_every commits (counted across processes in local_state), collect garbage.
        Two processes counting at once on a Dolt server collide on the counter's row: count again."""
        retrying(self._count, retry_on=SerializationFailure, attempts=8)

    def _count(self) -> None:
        count = int(self.state.get(COMMITS_SINCE_GC) or 0) + 1
        if count >= self.gc_every:
            self.repo.gc()
            count = 0
        self.state.set(COMMITS_SINCE_GC, str(count))
