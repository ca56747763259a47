"""Typed access to an agent's tables: services say what they want, not how it is spelled.

Each class wraps one table of the schema (schema/<dialect>/*.sql) over the
repository port. Table and column names are written here and in schema/ only.
Reads take `as_of` (a commit, branch or tracking ref) for time travel; writes
join the caller's transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from ..errors import NotFound
from ..model import Case, Memory, TrustEvent
from .governance_tables import AppliedVerdicts, EndorsementTable, KeyChanges, KeyRotations, PromotionTable, ReviewerTable, RosterTable
from ..model.events import Sender
from .event_tables import Decisions, Inbox, Outbox

if TYPE_CHECKING:
    from .port import Repository


class MemoryTable:
    """`memories`: one row per memory this agent holds (its own and foreign copies)."""

    name = "memories"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def get(self, memory_id: str, *, as_of: str | None = None) -> Memory | None:
        rows = self.repo.select(self.name, {"id": memory_id}, as_of=as_of)
        return Memory.from_row(rows[0]) if rows else None

    def require(self, memory_id: str, *, as_of: str | None = None) -> Memory:
        memory = self.get(memory_id, as_of=as_of)
        if memory is None:
            raise NotFound("memory", f"no memory with id {memory_id!r}")
        return memory

    def rows_by_id(self, ids: Sequence[str], *, as_of: str | None = None,
                   columns: Sequence[str] | None = None) -> list[dict]:
        return self.repo.select_in(self.name, "id", list(ids), as_of=as_of, columns=columns)

    def by_id(self, ids: Sequence[str], *, as_of: str | None = None) -> dict[str, Memory]:
        return {r["id"]: Memory.from_row(r) for r in self.rows_by_id(ids, as_of=as_of)}

    def ids_by_hash(self, content_hash: str) -> list[str]:
        """The memories (any state) whose text has this content hash."""
        return [r["id"] for r in self.repo.select_in(self.name, "content_hash", [content_hash], columns=("id",))]

    def by_hash(self, hashes: Iterable[str]) -> list[Memory]:
        return [Memory.from_row(r) for r in self.repo.select_in(self.name, "content_hash", sorted(hashes))]

    def rows(self, *, as_of: str | None = None, columns: Sequence[str] | None = None) -> list[dict]:
        return self.repo.select(self.name, as_of=as_of, columns=columns)

    def rows_where(self, where: Mapping, *, columns: Sequence[str] | None = None) -> list[dict]:
        return self.repo.select(self.name, where, columns=columns)

    def recallable(self) -> list[Memory]:
        """Neither retracted, absorbed into another memory, nor refuted."""
        return [Memory.from_row(r) for r in self.recallable_rows()]

    def recallable_rows(self, columns: Sequence[str] | None = None) -> list[dict]:
        return self.repo.select(self.name, {"retracted": 0, "absorbed_into": None, "refuted_by": None}, columns=columns)

    def count(self, **where) -> int:
        return self.repo.count(self.name, where or None)

    def absorbed_into_any(self, ids: Sequence[str]) -> list[dict]:
        """The foreign copies absorbed into any of these memories: {"id", "absorbed_into"} each."""
        return self.repo.select_in(self.name, "absorbed_into", list(ids), columns=("id", "absorbed_into"))

    def absorptions(self) -> list[tuple[str, str]]:
        """(absorber, absorbed) for every memory held absorbed into another: one scan."""
        return [(r["absorbed_into"], r["id"]) for r in self.repo.select(self.name, columns=("id", "absorbed_into"))
                if r["absorbed_into"]]

    def count_absorbed(self) -> int:
        return self.repo.count(self.name) - self.repo.count(self.name, {"absorbed_into": None})

    def origins(self) -> dict[str, int]:
        """How many memories of each origin this agent holds."""
        counts: dict[str, int] = {}
        for row in self.repo.select(self.name, columns=("origin_agent",)):
            counts[row["origin_agent"]] = counts.get(row["origin_agent"], 0) + 1
        return counts

    def insert(self, memories: Sequence[Memory]) -> None:
        self.repo.insert(self.name, [m.to_row() for m in memories])

    def insert_rows(self, rows: Sequence[Mapping]) -> None:
        """Rows as Memory.to_row makes them."""
        self.repo.insert(self.name, rows)

    def write(self, memories: Iterable[Memory]) -> None:
        """Insert or replace whole rows."""
        rows = [m.to_row() for m in memories]
        if rows:
            self.repo.upsert(self.name, rows, key=["id"])

    def write_rows(self, rows: Sequence[Mapping]) -> None:
        """Rows as another database holds them (copied verbatim, e.g. onto the quarantine branch)."""
        if rows:
            self.repo.upsert(self.name, list(rows), key=["id"])

    def set(self, memory_id: str, **values) -> None:
        """Change some columns of one row."""
        self.repo.update(self.name, values, {"id": memory_id})

    def remove(self, ids: Sequence[str]) -> None:
        """Delete these rows: copies this agent lets go (a key the roster does not name signed them)."""
        ids = list(ids)
        for start in range(0, len(ids), 500):
            self.repo.delete(self.name, {"id": ids[start:start + 500]})


class AgentTable:
    """`agents`: this agent's own row and what it knows of each peer (key, trust, watermark)."""

    name = "agents"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def get(self, agent_id: str, *, as_of: str | None = None) -> dict | None:
        rows = self.repo.select(self.name, {"agent_id": agent_id}, as_of=as_of)
        return rows[0] if rows else None

    def public_key(self, agent_id: str, *, as_of: str | None = None) -> str | None:
        rows = self.repo.select(self.name, {"agent_id": agent_id}, columns=("public_key",), as_of=as_of)
        return rows[0]["public_key"] if rows else None

    def keys(self) -> dict[str, str]:
        return {r["agent_id"]: r["public_key"]
                for r in self.repo.select(self.name, columns=("agent_id", "public_key"))}

    def trust_scores(self, *, as_of: str | None = None) -> dict[str, float]:
        return {r["agent_id"]: float(r["trust_score"])
                for r in self.repo.select(self.name, columns=("agent_id", "trust_score"), as_of=as_of)}

    def all(self) -> list[dict]:
        return self.repo.select(self.name, order_by="agent_id")

    def count(self) -> int:
        return self.repo.count(self.name)

    def insert(self, row: Mapping) -> None:
        self.repo.insert(self.name, [row])

    def write(self, row: Mapping) -> None:
        self.repo.upsert(self.name, [row], key=["agent_id"])

    def set_key(self, agent_id: str, public_key: str) -> None:
        self.repo.update(self.name, {"public_key": public_key}, {"agent_id": agent_id})

    def set_trust(self, agent_id: str, score: float) -> None:
        self.repo.update(self.name, {"trust_score": score}, {"agent_id": agent_id})

    def remove(self, agent_id: str) -> None:
        """Forget a peer: the next pull meets it as new."""
        self.repo.delete(self.name, {"agent_id": agent_id})


class CaseTable:
    """`quarantine`: one row per disputed pair (its id is a hash of the pair), as Case records:
    read from any branch (a column it lacks takes its default), written with every column."""

    name = "quarantine"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def get(self, case_id: str) -> Case | None:
        rows = self.repo.select(self.name, {"id": case_id})
        return Case.from_row(rows[0]) if rows else None

    def all(self, *, status: str | Sequence[str] | None = None, as_of: str | None = None) -> list[Case]:
        where = {"status": list(status) if isinstance(status, (list, tuple)) else status} if status else None
        return [Case.from_row(r) for r in self.repo.select(self.name, where, order_by="created_at", as_of=as_of)]

    def by_id(self, *, as_of: str | None = None) -> dict[str, Case]:
        return {c.id: c for c in map(Case.from_row, self.repo.select(self.name, as_of=as_of))}

    def count(self, *, status: Sequence[str]) -> int:
        return self.repo.count(self.name, {"status": list(status)})

    def write(self, cases: Iterable[Case]) -> None:
        rows = [c.to_row() for c in cases]
        if rows:
            self.repo.upsert(self.name, rows, key=["id"])


class LinkTable:
    """`skip_links`: typed, weighted links between memories."""

    name = "skip_links"
    KEY = ["source_id", "target_id", "link_type"]

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def touching(self, memory_id: str) -> list[dict]:
        """Links from and to one memory."""
        return self.touching_any([memory_id])

    def of_type(self, link_type: str, *, created_by: str | None = None) -> list[dict]:
        """The links of a type (those one agent made, where `created_by` names it)."""
        where = {"link_type": link_type, **({"created_by": created_by} if created_by is not None else {})}
        return self.repo.select(self.name, where, columns=("source_id", "target_id"))

    def touching_any(self, ids: Sequence[str]) -> list[dict]:
        """Links from and to any of these memories (one touching two of them comes twice)."""
        ids = list(ids)
        return self.repo.select_in(self.name, "source_id", ids) + self.repo.select_in(self.name, "target_id", ids)

    def write(self, links: Sequence[Mapping]) -> None:
        if links:
            self.repo.upsert(self.name, list(links), key=self.KEY)

    def remove(self, source_id: str, target_id: str, link_type: str) -> None:
        self.repo.delete(self.name, {"source_id": source_id, "target_id": target_id, "link_type": link_type})

    def remove_touching(self, ids: Sequence[str]) -> None:
        """Delete every link from or to these memories."""
        ids = list(ids)
        for start in range(0, len(ids), 500):
            self.repo.delete(self.name, {"source_id": ids[start:start + 500]})
            self.repo.delete(self.name, {"target_id": ids[start:start + 500]})


class TrustLedger:
    """`trust_events`: the append-only ledger of every change to a peer's score, as TrustEvent records."""

    name = "trust_events"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def append(self, events: Iterable[TrustEvent]) -> None:
        rows = [e.to_row() for e in events]
        if rows:
            self.repo.insert(self.name, rows)

    def of(self, agent_id: str) -> list[TrustEvent]:
        return [TrustEvent.from_row(r)
                for r in self.repo.select(self.name, {"agent_id": agent_id}, order_by="created_at")]


class LocalState:
    """`local_state`: small per-machine values, never committed."""

    name = "local_state"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def get(self, key: str) -> str | None:
        rows = self.repo.select(self.name, {"name": key})
        return rows[0]["value"] if rows else None

    def set(self, key: str, value: str) -> None:
        self.repo.upsert(self.name, [{"name": key, "value": value}], key=["name"])


class StoreClaims:
    """`local_store_claims`: a fresh token per content-hash bucket, written by each store in its
    write transaction so that concurrent stores of one text conflict (schema 004). Never committed."""

    name = "local_store_claims"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def claim(self, hashes: Iterable[str], token: str) -> None:
        buckets = sorted({h[:2] for h in hashes})
        self.repo.upsert(self.name, [{"bucket": b, "token": token} for b in buckets], key=["bucket"])


class AccessCounts:
    """`local_access`: how often each memory was recalled, never committed."""

    name = "local_access"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def all(self) -> dict[str, int]:
        return {r["memory_id"]: int(r["count"]) for r in self.repo.select(self.name, columns=("memory_id", "count"))}

    def of(self, ids: Sequence[str]) -> dict[str, int]:
        return {r["memory_id"]: int(r["count"]) for r in self.repo.select_in(self.name, "memory_id", list(ids))}

    def write(self, counts: Mapping[str, int], *, at: str) -> None:
        self.repo.upsert(self.name, [{"memory_id": i, "count": n, "last_access": at} for i, n in counts.items()],
                         key=["memory_id"])


class Tables:
    """Every table of one agent's database, over one repository. With a sender, the
    changes written through it emit their events to the outbox."""

    def __init__(self, repo: "Repository", sender: Sender | None = None, *, outbox_limit: int | None = None):
        self.repo = repo
        self.memories = MemoryTable(repo)
        self.agents = AgentTable(repo)
        self.cases = CaseTable(repo)
        self.links = LinkTable(repo)
        self.ledger = TrustLedger(repo)
        self.state = LocalState(repo)
        self.store_claims = StoreClaims(repo)
        self.access = AccessCounts(repo)
        self.reviewers = ReviewerTable(repo)
        self.applied_verdicts = AppliedVerdicts(repo)
        self.endorsements = EndorsementTable(repo)
        self.promotions = PromotionTable(repo)
        self.key_rotations = KeyRotations(repo)
        self.key_changes = KeyChanges(repo)
        self.roster = RosterTable(repo)
        self.outbox = Outbox(repo, sender, limit=outbox_limit)
        self.inbox = Inbox(repo)
        self.decisions = Decisions(repo)
