"""The Agent's verbs of correction: what a store contradicts among the agent's own memories,
and challenging a peer's memory (a part of the facade, kept apart for its size)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .challenges import Challenges
    from .model import Memory
    from .reports import ChallengeReport


class CorrectionVerbs:
    """Mixed into Agent, whose repo, tables, writer, upkeep, keeper, comparator, settings,
    quarantine and `_sharing_remote` these use."""

    @cached_property
    def challenger(self) -> Challenges:
        from .challenges import Challenges
        return Challenges(self.repo, self.tables, self.writer, self.upkeep, agent_id=self.agent_id,
                          identity=lambda: self.identity, trust_scores=self.peers_view.trust_scores,
                          settings=self.settings)

    def contradictions(self, memory: Memory) -> list[str]:
        """This agent's own live memories near `memory` that its judge finds it contradicts."""
        from .contradictions import SCAN_AT_MOST, contradicted
        scan = not self.keeper.loaded and self.tables.memories.count(origin_agent=self.agent_id,
                                                                     retracted=0) <= SCAN_AT_MOST
        return contradicted(memory, None if scan else self.keeper.glance(), self.tables.memories,
                            self.comparator, owner=self.agent_id, threshold=self.settings.similarity_threshold)

    def challenge(self, memory_id: str, why: str, *, remote: str | None = None) -> ChallengeReport:
        """Say a peer's memory is wrong: `why` is stored as this agent's counter-claim (its
        parent the challenged memory, which nobody but its origin edits) and the pair is
        disputed, one commit; the case is shared on collective/quarantine at once, and a
        person resolves it like any other. NotShared when recorded here but not pushed."""
        remote_name = self._sharing_remote(remote)  # an unknown remote is bad input, said first
        result = self.challenger.challenge(memory_id, why)
        return self.quarantine.share_after("challenge", result, remote_name)
