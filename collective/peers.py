"""The peers an agent knows: their keys, its trust in them, and the ledger of why.

Trust is the holder's own view (DESIGN, Trust): each change is a row in
trust_events, written beside the score it sets.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from .core import trust
from .errors import NotFound
from .identity import fingerprint
from .model import uuid7
from .store.tables import Tables


class Peers:
    def __init__(self, tables: Tables, agent_id: str):
        self.tables = tables
        self.agent_id = agent_id

    def trust_scores(self, *, as_of: str | None = None) -> dict[str, float]:
        scores = self.tables.agents.trust_scores(as_of=as_of)
        scores[self.agent_id] = 1.0  # an agent's own memories have trust 1
        return scores

    def known(self, agent_id: str) -> bool:
        return self.tables.agents.get(agent_id) is not None

    def list(self) -> list[dict]:
        held = self.tables.memories.origins()
        return [{"agent": row["agent_id"], "trust": round(float(row["trust_score"]), 4),
                 "last_sync": row["last_sync"], "last_synced_commit": row["last_synced_commit"],
                 "key_fingerprint": fingerprint(row["public_key"]), "memories": held.get(row["agent_id"], 0)}
                for row in self.tables.agents.all() if row["agent_id"] != self.agent_id]

    def ledger(self, agent_id: str) -> dict:
        row = self.tables.agents.get(agent_id)
        if row is None:
            raise NotFound("agent", f"{agent_id} is not a known peer")
        return {"agent": agent_id, "trust": float(row["trust_score"]), "events": self.tables.ledger.of(agent_id)}

    def move(self, moves: Iterable[tuple[str, str]], *, evidence: Mapping, verifier: str, at: str) -> None:
        """Apply (agent id, reason) trust moves for known peers, in the caller's transaction."""
        book = trust.TrustBook(self.agent_id, self.trust_scores())
        for agent_id, reason in moves:
            if not self.known(agent_id):
                continue
            moved = book.move(agent_id, reason)
            if moved is None:
                continue
            self.tables.ledger.append([trust.ledger_row(moved, event_id=uuid7(), evidence=evidence,
                                                        verifier=verifier, at=at)])
            self.tables.agents.set_trust(agent_id, moved.score_after)
