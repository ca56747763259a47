"""Access counts: how often each memory came back, buffered, never committed."""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Sequence

from ..core import scoring
from ..model import iso
from ..store.dream_tables import CoAccessCounts
from ..store.tables import AccessCounts

if TYPE_CHECKING:
    from ..store.port import Repository

ACCESS_FLUSH_SECONDS = 2.0  # buffered access counts reach the database at least this often, and on close


class AccessCounter:
    """Hebbian counters, buffered: a recall waits for no fsync, and the counts are
    written in one transaction every ACCESS_FLUSH_SECONDS and on close (a crash loses
    at most those seconds of counts). Other processes' counts are re-read as often.

    It also counts co-access: each memory a recall returns with k - 1 others earns the
    bonus 1 + 0.02 (k - 1), multiplied up in local_coaccess for the next dream to fold."""

    def __init__(self, repo: Repository, table: AccessCounts, *, clock: Callable[[], float] = time.monotonic):
        self.repo = repo
        self.table = table
        self.coaccess = CoAccessCounts(repo)
        self.clock = clock
        self.pending: dict[str, int] = {}
        self.pending_coaccess: dict[str, tuple[int, float]] = {}
        self._stamp = ""
        self._flushed = clock()
        self._known: dict[str, int] | None = None  # local_access as last read
        self.version = 0  # counts changes to _known, for callers' caches
        self._read_at = 0.0

    def counts(self) -> dict[str, int]:
        """The counts in local_access, re-read at most every ACCESS_FLUSH_SECONDS (this
        process's pending ones are added by callers)."""
        if self._known is None or self.clock() - self._read_at >= ACCESS_FLUSH_SECONDS:
            self._known = self.table.all()
            self.version += 1
            self._read_at = self.clock()
        return self._known

    def count_of(self, memory_id: str) -> int:
        return self.table.of([memory_id]).get(memory_id, 0) + self.pending.get(memory_id, 0)

    def most(self) -> int:
        """An upper bound of any memory's access count."""
        return max(self.counts().values(), default=0) + max(self.pending.values(), default=0)

    def record(self, ids: Sequence[str], now: datetime) -> None:
        for memory_id in ids:
            self.pending[memory_id] = self.pending.get(memory_id, 0) + 1
        if len(ids) > 1:
            bonus = scoring.coaccess_bonus(len(ids))
            for memory_id in ids:
                n, factor = self.pending_coaccess.get(memory_id, (0, 1.0))
                self.pending_coaccess[memory_id] = (n + 1, factor * bonus)
        self._stamp = iso(now)
        if self.clock() - self._flushed >= ACCESS_FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the buffered counts (added to what other processes wrote meanwhile)."""
        pending, self.pending = self.pending, {}
        together, self.pending_coaccess = self.pending_coaccess, {}
        self._flushed = self.clock()
        if not pending:
            return
        with self.repo.transaction():
            existing = self.table.of(list(pending))
            written = {i: existing.get(i, 0) + n for i, n in pending.items()}
            self.table.write(written, at=self._stamp)
            known = self.coaccess.of(list(together))
            self.coaccess.write({i: (known.get(i, (0, 1.0))[0] + n, known.get(i, (0, 1.0))[1] * f)
                                 for i, (n, f) in together.items()}, at=self._stamp)
        if self._known is not None:
            self._known.update(written)
            self.version += 1


