"""What an agent can say about itself: its commits and its state at a glance."""

from __future__ import annotations

from .errors import BadInput
from .index.keeper import IndexKeeper
from .model.enums import CaseStatus
from .store.port import Commit, Repository
from .store.tables import Tables


def log(repo: Repository, branch: str, n: int | None) -> list[Commit]:
    if n is not None and (not isinstance(n, int) or n < 1):
        raise BadInput("n", f"must be a positive whole number, got {n!r}")
    return repo.log(branch, limit=n)


def describe(repo: Repository, tables: Tables, keeper: IndexKeeper, location, home, *, agent_id: str,
             branch: str) -> dict:
    head = repo.head(branch)
    memories = tables.memories
    counts = {
        "memories": memories.count(),
        "own": memories.count(origin_agent=agent_id),
        "retracted": memories.count(retracted=1),
        "disputed": memories.count(disputed=1),
        "absorbed": memories.count_absorbed(),
        "peers": tables.agents.count() - 1,
        "open_cases": tables.cases.count(status=[CaseStatus.PENDING, CaseStatus.ESCALATED]),
    }
    return {"agent": agent_id, "home": str(home.root), **location.describe(), "branch": branch, "head": head,
            "schema_version": repo.schema_version(), "counts": counts, "index": keeper.state(head),
            "remotes": repo.remotes(), "events": tables.outbox.describe()}
