"""Writing a merge plan: every row it decided, in the caller's transaction."""

from __future__ import annotations

from typing import Mapping

from ..store.tables import Tables
from .plan import MergePlan


def apply(tables: Tables, planned: MergePlan, *, watermark: Mapping) -> None:
    """Write a plan in the caller's transaction (the caller commits). `watermark` is
    the peer's agents row as it stands after this pull."""
    tables.agents.write(watermark)  # first: trust updates below land on it
    write(tables, planned)


def write(tables: Tables, planned: MergePlan) -> None:
    """Every row a plan decided, in the caller's transaction (a challenge's plan has no peer
    and no watermark)."""
    tables.memories.write(planned.inserts)
    tables.memories.write(planned.updates.values())
    tables.links.write(planned.links)
    tables.cases.write(list(planned.cases.values()))
    if planned.trust_changes:
        tables.ledger.append(planned.trust_changes)
        final = {change.agent_id: change.score_after for change in planned.trust_changes}
        for agent_id, score in final.items():
            tables.agents.set_trust(agent_id, score)
