"""What an agent can say about itself: its commits and its state at a glance."""

from __future__ import annotations

from datetime import datetime
from typing import Mapping

from .core import scoring
from .index.keeper import IndexKeeper
from .model import utcnow, validate_count
from .model.enums import CaseStatus, KeyDecision
from .quarantine.closing import closed_cases
from .reports import StatusReport
from .store.port import Commit, Repository
from .store.tables import Tables

MAX_LOG = 2**31 - 1  # a LIMIT past the engines' integers fails; no log is longer than this


def log(repo: Repository, branch: str, n: int | None) -> list[Commit]:
    return repo.log(branch, limit=None if n is None else validate_count(n, "n", maximum=MAX_LOG))


def describe(repo: Repository, tables: Tables, keeper: IndexKeeper, location, home, *, agent_id: str,
             branch: str, settings) -> StatusReport:
    head = repo.head(branch)
    memories = tables.memories
    counts = {
        "memories": memories.count(),
        "own": memories.count(origin_agent=agent_id),
        "retracted": memories.count(retracted=1),
        "disputed": memories.count(disputed=1),
        "absorbed": memories.count_absorbed(),
        "peers": tables.agents.count() - 1,
        "open_cases": _open_cases(repo, tables),
        # verdicts kept but not applied: signed by no reviewer this agent honours
        "awaiting_reviewer": tables.cases.count(status=[CaseStatus.RESOLVED]) - len(tables.applied_verdicts.case_ids()),
        "key_changes": sum(c["status"] != KeyDecision.ACCEPTED for c in tables.key_changes.all().values()),
    }
    return {"agent": agent_id, "home": str(home.root), **location.describe(), "branch": branch, "head": head,
            "schema_version": repo.schema_version(), "counts": counts,
            "stability": stability(tables, tables.agents.trust_scores(), utcnow(), settings)["stability"],
            "index": keeper.state(head), "remotes": repo.remotes(), "events": tables.outbox.describe()}


def _open_cases(repo: Repository, tables: Tables) -> int:
    """The cases waiting for a person: open, and not closed by a retraction (closing.py)."""
    waiting = tables.cases.all(status=[CaseStatus.PENDING, CaseStatus.ESCALATED])
    return len(waiting) - len(closed_cases(repo, tables, waiting))


def stability(tables: Tables, trust_scores: Mapping[str, float], now: datetime, settings) -> dict:
    """The field stability of the memories recall can return (core.scoring.field_stability
    says how; faded ones count as 0)."""
    rows = tables.memories.recallable_rows(columns=scoring.SCORE_COLUMNS)
    strengths = scoring.row_strengths(rows, trust_scores, now.timestamp(), settings.half_lives)
    faded = scoring.row_fading(rows, now.timestamp(), settings.half_lives) < settings.fade_threshold
    figure = scoring.field_stability(strengths, faded=faded)
    return {"stability": round(figure, 6), "memories": len(rows)}
