"""A quarantine case as a typed record: one row of `quarantine`, the disputed pair as
every agent holding it shares it on collective/quarantine. No I/O; the rules that
join, sign and resolve cases are in quarantine/."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .enums import CaseStatus
from .record import Record


@dataclass(frozen=True)
class Case(Record):
    """One disputed pair of memories. Its id is a hash of the sorted pair (quarantine.cases.case_id).

    Schema 1 made the pair, its measures, the count, the status and the verdict; schema 3
    the three signatures (the opening by its opener, the count by whoever last raised it,
    the verdict by its reviewer); schema 7 `dispute`, another case of the same disagreement;
    schema 11 who linked it there (`dispute_by`) and that agent's signature over the link.
    """

    id: str
    memory_id_a: str
    memory_id_b: str
    agent_a: str
    agent_b: str
    similarity: float
    phase_diff: float
    created_at: str
    dispute_count: int = 1
    status: CaseStatus = CaseStatus.PENDING
    resolution: str | None = None         # the verdict document, as its reviewer signed it (JSON)
    resolved_at: str | None = None
    opened_by: str | None = None          # schema 3
    opening_signature: str | None = None
    counted_by: str | None = None
    count_signature: str | None = None
    verdict_signature: str | None = None
    dispute: str | None = None            # schema 7
    dispute_by: str | None = None         # schema 11
    dispute_signature: str | None = None

    def __post_init__(self) -> None:
        # one type per column, whichever engine read it and whatever a plan computed it from
        # (numpy floats): copies of a case compare equal when their values are
        object.__setattr__(self, "similarity", float(self.similarity))
        object.__setattr__(self, "phase_diff", float(self.phase_diff))
        object.__setattr__(self, "dispute_count", int(self.dispute_count))
        object.__setattr__(self, "status", CaseStatus(self.status))

    def to_row(self) -> dict:
        row = super().to_row()
        row["status"] = str(self.status)
        return row

    @property
    def pair(self) -> tuple[str, str]:
        return self.memory_id_a, self.memory_id_b

    @property
    def resolved(self) -> bool:
        return self.status == CaseStatus.RESOLVED

    def decision(self) -> dict | None:
        """The verdict document, parsed (None while the case is open)."""
        return json.loads(self.resolution) if self.resolution else None
