"""A trust-ledger row as a typed record: `trust_events`, the append-only account of every
change to the holder's score for a peer (DESIGN, Trust). No I/O; the rules that move
scores are in core/trust.py."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .record import Record


@dataclass(frozen=True)
class TrustEvent(Record):
    """One change to a peer's score: by how much, to what, why, on what evidence, seen by whom."""

    id: str
    agent_id: str
    delta: float
    score_after: float
    reason: str
    verifier: str
    created_at: str
    evidence: str = "{}"    # JSON: what it rests on (memory ids; a verdict's case and dispute; a pull's case_ids)

    def facts(self) -> dict:
        """The evidence, parsed."""
        return json.loads(self.evidence) if self.evidence else {}

    def to_dict(self) -> dict:
        """The documented shape (reports.TrustEvent, `cmem trust`): the row with its evidence parsed."""
        return {**self.to_row(), "evidence": self.facts()}
