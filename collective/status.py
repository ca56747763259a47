"""What an agent can say about itself: its commits and its state at a glance."""

from __future__ import annotations

from .core import scoring
from .errors import BadInput
from .index.keeper import IndexKeeper
from .model import utcnow
from .model.enums import CaseStatus
from .store.port import Commit, Repository
from .store.tables import Tables


def log(repo: Repository, branch: str, n: int | None) -> list[Commit]:
    if n is not None and (not isinstance(n, int) or n < 1):
        raise BadInput("n", f"must be a positive whole number, got {n!r}")
    return repo.log(branch, limit=n)


def describe(repo: Repository, tables: Tables, keeper: IndexKeeper, location, home, *, agent_id: str,
             branch: str, settings=None) -> dict:
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
    figures = {} if settings is None else {"stability": round(stability(tables, settings), 6)}
    return {"agent": agent_id, "home": str(home.root), **location.describe(), "branch": branch, "head": head,
            "schema_version": repo.schema_version(), "counts": counts, **figures, "index": keeper.state(head),
            "remotes": repo.remotes()}


def stability(tables: Tables, settings, *, now: float | None = None) -> float:
    """The field stability of the memories recall can return (core.scoring.field_stability)."""
    rows = [r for r in tables.memories.rows(columns=(*scoring.SCORE_COLUMNS, "retracted", "absorbed_into"))
            if not r["retracted"] and r["absorbed_into"] is None]
    strengths = scoring.row_strengths(rows, tables.agents.trust_scores(), utcnow().timestamp() if now is None else now,
                                      settings.half_lives)
    return scoring.field_stability(strengths, faded_below=settings.fade_threshold)
