"""Proposals for main and their endorsements as typed records (schema 3 and 8): rows of an
agent's working branch that travel on collective/quarantine beside the cases. No I/O;
signing and the rule of when one is due are in promotion/rules.py."""

from __future__ import annotations

from dataclasses import dataclass

from .record import Record


@dataclass(frozen=True)
class Promotion(Record):
    """One row of `promotions`: a memory proposed for main, signed by the agent proposing it,
    and a person's decision once made (the document, signed with the reviewer's key)."""

    memory_id: str
    origin_agent: str
    proposed_by: str
    proposed_at: str
    proposal_signature: str
    note: str | None = None
    decision: str | None = None            # the decision document (JSON), as the reviewer signed it
    decision_signature: str | None = None
    decided_at: str | None = None

    def undecided(self) -> "Promotion":
        """The proposal without a decision."""
        return self.replace(decision=None, decision_signature=None, decided_at=None)


@dataclass(frozen=True)
class Endorsement(Record):
    """One row of `endorsements`: an agent's signed support for promoting a memory."""

    memory_id: str
    agent_id: str
    signature: str
    created_at: str

    @property
    def key(self) -> tuple[str, str]:
        return self.memory_id, self.agent_id
