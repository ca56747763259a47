"""The decisions a person makes, as MCP tools: offered only by a server started for a
reviewer (`cmem mcp --reviewer NAME`), whose key in this home signs them.

An agent's own model never gets these: the quarantine exists so that a person, not the
agents that disagree, decides. A person who reviews through an MCP client (a chat, an
assistant acting on their word) starts the server with their reviewer key, and each
decision is signed and recorded as `cmem quarantine resolve` and friends would."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from ..reports import DecidedDispute, KeyDecision, ProposalReport
from .brief import returns
from .tools import MemoryTools

if TYPE_CHECKING:
    from ..agent import Agent

NOTE = Annotated[str, Field(min_length=1, description="why: recorded, signed, with the decision")]


class PersonTools(MemoryTools):
    """The memory tools, and a person's decisions signed with the reviewer key `reviewer`."""

    def __init__(self, agent: Agent, reviewer: str):
        super().__init__(agent)
        agent.reviewer_key(reviewer)  # a reviewer without a key here is refused before serving
        self.reviewer = reviewer

    @returns(DecidedDispute)
    def resolve(self, dispute_id: str, keep: Literal["a", "b", "both", "merged"], note: NOTE,
                text: str | None = None, supersede: bool = False) -> DecidedDispute:
        """The person's verdict on a whole dispute, signed with their reviewer key and shared,
        as `cmem quarantine resolve`: keep a, b, both (both stand, no longer disputed) or
        merged (text: the corrected statement, stored as a new memory). supersede: replace
        the verdict standing on a resolved dispute.
        """
        return self._call(lambda agent: agent.resolve_dispute(dispute_id, keep=keep, text=text, note=note,
                                                              by=self.reviewer, supersede=supersede), publishes=True)

    @returns(DecidedDispute)
    def reopen(self, dispute_id: str, note: NOTE) -> DecidedDispute:
        """Undo the verdict standing on a resolved dispute, signed and shared, as `cmem
        quarantine reopen`: it is open again for a reviewer."""
        return self._call(lambda agent: agent.reopen_dispute(dispute_id, note=note, by=self.reviewer),
                          publishes=True)

    @returns(ProposalReport)
    def decide_promotion(self, memory_id: str, approve: bool, note: NOTE) -> ProposalReport:
        """Approve (promote to main) or reject a proposal, signed with the reviewer key, as
        `cmem promotions approve` or `reject`."""
        return self._call(lambda agent: agent.decide_promotion(memory_id, approve=approve, note=note,
                                                               by=self.reviewer), publishes=True)

    @returns(KeyDecision)
    def decide_key(self, agent_id: str, accept: bool) -> KeyDecision:
        """Accept or refuse the new key a peer showed that no signed rotation explains, as
        `cmem agents accept-key` or `reject-key`; refused, its pulls stay refused."""
        return self._call(lambda agent: agent.decide_key(agent_id, accept=accept))
