"""The unversioned event tables: the outbox a change writes its events to (in its own
transaction), the inbox a receiver dedupes by, and the receiver's decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from ..model import iso, utcnow
from ..model.events import Draft, Sender

if TYPE_CHECKING:
    from .port import Repository

STATE = "local_state"
LAST_PUBLISH = "events.last_publish"
OUTBOX_FULL = "events.dropped.outbox_full"  # unsent events the outbox's bound let go


def _chunks(ids: Sequence[str], size: int = 500) -> Iterable[list[str]]:
    """Ids a few hundred at a time: SQLite refuses a statement with more than 32,766 variables."""
    for start in range(0, len(ids), size):
        yield list(ids[start:start + size])


class Outbox:
    """`local_outbox`: events written beside the change they report, as the canonical
    JSON their signature covers; sent_at set once NATS acknowledged them. Without a sender
    (a database opened by no agent, or events switched off) nothing is emitted. At most
    `limit` wait unsent (NATS away for long): beyond it the oldest go, counted in
    `local_state` (events.dropped.outbox_full)."""

    name = "local_outbox"

    def __init__(self, repo: "Repository", sender: Sender | None = None, *, limit: int | None = None):
        self.repo = repo
        self.sender = sender
        self.limit = limit

    def add(self, drafts: Iterable[Draft]) -> list[dict]:
        """Stamp and write events in the caller's transaction (refused ones raise before any write)."""
        if self.sender is None:
            return []
        at = iso(utcnow())
        stamped = self.sender.stamp_all(list(drafts))
        subjects = {t: self.sender.subject(t) for t in {e["event_type"] for e, _ in stamped}}
        rows = [{"event_id": e["event_id"], "subject": subjects[e["event_type"]], "envelope": signed.decode("utf-8"),
                 "created_at": at, "sent_at": None} for e, signed in stamped]
        if rows:
            self.repo.insert(self.name, rows)
            self._bound()
        return [e for e, _ in stamped]

    def _bound(self) -> None:
        over = self.depth() - self.limit if self.limit is not None else 0
        if over <= 0:
            return
        oldest = [r["event_id"] for r in self.repo.select(self.name, {"sent_at": None}, columns=("event_id",),
                                                           order_by="event_id", limit=over)]
        for chunk in _chunks(oldest):
            self.repo.delete(self.name, {"event_id": chunk})
        dropped = self.repo.select(STATE, {"name": OUTBOX_FULL})
        count = int(dropped[0]["value"]) if dropped else 0
        self.repo.upsert(STATE, [{"name": OUTBOX_FULL, "value": str(count + len(oldest))}], key=["name"])

    def unsent(self, limit: int) -> list[dict]:
        return self.repo.select(self.name, {"sent_at": None}, columns=("event_id", "subject", "envelope"),
                                order_by="event_id", limit=limit)

    def mark_sent(self, event_ids: Sequence[str], *, at: str) -> None:
        """In the caller's transaction: these were acknowledged; the last publish is now."""
        for chunk in _chunks(event_ids):
            self.repo.update(self.name, {"sent_at": at}, {"event_id": chunk})
        self.repo.upsert(STATE, [{"name": LAST_PUBLISH, "value": at}], key=["name"])

    def last_publish(self) -> str | None:
        rows = self.repo.select(STATE, {"name": LAST_PUBLISH})
        return rows[0]["value"] if rows else None

    def describe(self) -> dict:
        """What `cmem status` shows: events waiting to go out, and when the last went."""
        return {"outbox": self.depth(), "last_publish": self.last_publish()}

    def depth(self) -> int:
        return self.repo.count(self.name, {"sent_at": None})

    def prune(self, *, sent_before: str) -> int:
        """Forget events acknowledged before a time (the stream keeps them for its peers)."""
        return _delete_older(self.repo, self.name, "sent_at", sent_before)

    def count(self) -> int:
        return self.repo.count(self.name)


class Inbox:
    """`local_inbox`: every event received, once: a redelivered event_id is not new."""

    name = "local_inbox"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def add(self, event_id: str, subject: str, envelope: str, *, at: str) -> bool:
        """Record a received event in the caller's transaction; False when it was seen before."""
        if self.repo.count(self.name, {"event_id": event_id}):
            return False
        self.repo.insert(self.name, [{"event_id": event_id, "subject": subject, "envelope": envelope,
                                      "received_at": at}])
        return True

    def count(self) -> int:
        return self.repo.count(self.name)

    def prune(self, *, received_before: str) -> int:
        """Forget event ids older than the stream's retention: no copy of them can come again."""
        return _delete_older(self.repo, self.name, "received_at", received_before)


class Decisions:
    """`local_decisions`: what the receiver decided for each event and why; `done_at` is set
    when a pull brought what it was about."""

    name = "local_decisions"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def write(self, row: dict) -> None:
        self.repo.upsert(self.name, [row], key=["event_id"])

    def open(self, *, decision: str | None = None, sender: str | None = None) -> list[dict]:
        """Decisions not yet carried out (a pull that has not brought their memory)."""
        where = {"done_at": None, "decision": decision or ["now", "queue"]}
        if sender is not None:
            where["sender"] = sender
        return self.repo.select(self.name, where, order_by="decided_at")

    def done(self, event_ids: Sequence[str], *, at: str | None = None) -> None:
        if event_ids:
            self.repo.update(self.name, {"done_at": at or iso(utcnow())}, {"event_id": list(event_ids)})

    def all(self, *, limit: int | None = None) -> list[dict]:
        return self.repo.select(self.name, order_by="decided_at", limit=limit)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.repo.select(self.name, columns=("decision",)):
            out[row["decision"]] = out.get(row["decision"], 0) + 1
        return out


def _delete_older(repo: "Repository", table: str, column: str, before: str) -> int:
    """Delete the rows whose `column` (a UTC time as text) is before `before`, in the caller's
    transaction. Read through the port's equality filters: a per-minute chore over small tables."""
    old = [r["event_id"] for r in repo.select(table, columns=("event_id", column))
           if r[column] is not None and r[column] < before]
    for start in range(0, len(old), 500):
        repo.delete(table, {"event_id": old[start:start + 500]})
    return len(old)
