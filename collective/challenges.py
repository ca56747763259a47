"""Challenges: an agent says a peer's memory is wrong, and a person decides.

Nobody but a memory's origin ever edits it. A challenger instead stores its own
counter-claim (the reason it gives, as a memory of its own, signed, whose parent is
the challenged memory) and disputes the pair on its word, as a merge disputes a
destructive pair (merge.plan_challenge): both weakened, flagged and linked, a case
opened with the usual id, so the case travels on collective/quarantine and a verdict
(keep a / keep b / both / merged) settles it like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .config import Settings
from .errors import BadInput
from .identity import Identity
from .merge import MergeContext
from .merge.apply import write
from .merge.plan import plan_challenge
from .model import Memory, events, utcnow, validate_content
from .reports import ChallengeReport
from .upkeep import Upkeep
from .writer import Writer
from .quarantine.cases import case_id
from .quarantine.signing import sign_cases

if TYPE_CHECKING:
    from .store.port import Repository
    from .store.tables import Tables

CHALLENGE_TAG = "challenge"  # the counter-claim's tag, so recall and a person can tell it apart


class Challenges:
    def __init__(self, repo: Repository, tables: Tables, writer: Writer, upkeep: Upkeep, *, agent_id: str,
                 identity: Callable[[], Identity], trust_scores: Callable[[], dict], settings: Settings):
        self.repo, self.tables, self.writer, self.upkeep = repo, tables, writer, upkeep
        self.agent_id, self.identity, self.trust_scores, self.settings = agent_id, identity, trust_scores, settings

    def challenge(self, memory_id: str, why: str) -> ChallengeReport:
        """Dispute a peer's memory with a counter-claim of this agent (`why`), in one commit.
        Bad input (one's own memory, a retracted or refuted one, an empty reason) writes nothing."""
        original = self._challengeable(memory_id)
        why = validate_content(why, "why")
        counter = self.writer.compose(why, parents=[original.id], category=original.category, tags=[CHALLENGE_TAG])
        similarity = _cosine(original, counter)
        reason = f"{self.agent_id} challenges {original.origin_agent}'s memory: {counter.summary}"
        planned = plan_challenge(original, counter, similarity, reason,
                                 MergeContext(receiver=self.agent_id, trust=self.trust_scores(),
                                              known_cases=self.tables.cases.by_id(), settings=self.settings,
                                              now=utcnow()))
        planned.cases = dict(zip(planned.cases, sign_cases(list(planned.cases.values()), self.identity(),
                                                           self.agent_id)))
        cid = case_id(original.id, counter.id)
        with self.repo.transaction():
            write(self.tables, planned)
            self.tables.outbox.add(events.stored(planned.inserts, []))
            head = self.repo.commit(f"challenge {original.id} of {original.origin_agent} with {counter.id}: "
                                    f"{counter.summary[:60]}", author=self.agent_id)
        self.upkeep.after_commit()
        case = planned.cases[cid]
        return {"id": counter.id, "content": counter.content, "challenges": original.id,
                "origin_agent": original.origin_agent, "dispute": cid, "status": case.status, "commit": head}

    def _challengeable(self, memory_id: str) -> Memory:
        memory = self.tables.memories.get(memory_id) if isinstance(memory_id, str) else None
        if memory is None:
            raise BadInput("memory", f"no memory {memory_id!r} here to challenge (pull first?)")
        if memory.origin_agent == self.agent_id:
            raise BadInput("memory", f"{memory_id} is this agent's own: correct it (update, or store with "
                                     "supersedes) rather than challenge it")
        if memory.retracted:
            raise BadInput("memory", f"{memory_id} is retracted by its origin: nothing to challenge")
        if memory.refuted_by:
            raise BadInput("memory", f"{memory_id} is refuted already (by {memory.refuted_by})")
        return memory


def _cosine(a: Memory, b: Memory) -> float:
    """The pair's cosine where both are of one model (stored vectors are unit), else 0."""
    if a.dim != b.dim or a.model_version != b.model_version:
        return 0.0
    return float(a.vector @ b.vector)
