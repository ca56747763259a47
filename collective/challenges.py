"""Challenges: an agent says a peer's memory is wrong, and a person decides.

Nobody but a memory's origin ever edits it. A challenger instead stores its own
counter-claim (the reason it gives, as a memory of its own, signed, whose parent is
the challenged memory) and disputes the pair on its word, as a merge disputes a
destructive pair (merge.plan_challenge): both weakened, flagged and linked, a case
opened with the usual id, so the case travels on collective/quarantine and a verdict
(keep a / keep b / both / merged) settles it like any other. A person disputes two
claims no merge paired the same way (`open_for`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .config import Settings
from .errors import BadInput
from .identity import Identity
from .merge import MergeContext, MergePlan
from .merge.apply import write
from .merge.plan import plan_challenge
from .model import Memory, events, iso, utcnow, validate_content
from .model.enums import Keep
from .reports import ChallengeReport
from .upkeep import Upkeep
from .writer import Writer
from .quarantine.cases import case_id, resolution
from .quarantine.signing import sign_cases, verdict_document

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
        planned = self._planned(original, counter, f"{self.agent_id} challenges {original.origin_agent}'s memory: "
                                                   f"{counter.summary}", utcnow())
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

    def open_for(self, a: Memory, b: Memory, *, why: str, reviewer: Identity, name: str) -> tuple[str, str]:
        """A person's dispute between two claims held here that no merge paired (`disputable`),
        as a challenge disputes a pair, in one commit. The case is this agent's, as every case
        is; the person's word travels with it: a reopening signed with their reviewer key
        (`opens`, the note `why`), so every holder lists the dispute as escalated, opened by
        them, and their verdict, when it comes, stands over it. Returns the case and commit."""
        now, cid = utcnow(), case_id(a.id, b.id)
        planned = self._planned(a, b, f"{name} disputes these claims: {why}", now)
        (b_row,) = planned.inserts  # held here already: the plan's copy of it (weakened, flagged) is an update
        b_row.updated_at, planned.inserts, planned.updates[b.id] = iso(now), [], b_row
        case = planned.cases[cid]
        document = verdict_document(case, keep=Keep.REOPEN, note=why, by=name, reviewer_key=reviewer.public_key,
                                    agent=self.agent_id, at=iso(now),
                                    dispute={"dispute": cid, "dispute_keep": Keep.REOPEN, "opens": True})
        planned.cases[cid] = resolution(case, document=document, signature=reviewer.sign(document.encode("utf-8")),
                                        at=iso(now))
        with self.repo.transaction():
            write(self.tables, planned)
            head = self.repo.commit(f"quarantine: {name} opens dispute {cid} between {a.id} and {b.id}: {why[:60]}",
                                    author=self.agent_id)
        self.upkeep.after_commit()
        return cid, head

    def disputable(self, *memory_ids: str) -> list[Memory]:
        """The two memories a person may dispute: two held here, live, of two agents, not
        paired by a case yet; else BadInput."""
        if len(memory_ids) != 2 or not all(isinstance(m, str) for m in memory_ids) or len(set(memory_ids)) != 2:
            raise BadInput("memory", "pick two different memories")
        found = self.tables.memories.by_id(list(memory_ids))
        for memory_id in memory_ids:
            memory = found.get(memory_id)
            if memory is None:
                raise BadInput("memory", f"no memory {memory_id!r} here (pull first?)")
            if memory.retracted or memory.refuted_by:
                raise BadInput("memory", f"{memory_id} is {'retracted' if memory.retracted else 'refuted'}: "
                                         "nothing to dispute")
            if memory.absorbed_into:
                raise BadInput("memory", f"{memory_id} is a copy held within {memory.absorbed_into}: dispute that one")
        a, b = (found[m] for m in memory_ids)
        if a.origin_agent == b.origin_agent:
            raise BadInput("memory", f"both claims are {a.origin_agent}'s: a dispute is between two agents' claims")
        if self.tables.cases.get(case_id(a.id, b.id)) is not None:
            raise BadInput("memory", f"these two claims are in dispute {case_id(a.id, b.id)} already")
        return [a, b]

    def _planned(self, a: Memory, b: Memory, reason: str, now) -> MergePlan:
        """The pair disputed as a merge disputes a destructive one (merge.plan_challenge), its case signed."""
        planned = plan_challenge(a, b, _cosine(a, b), reason,
                                 MergeContext(receiver=self.agent_id, trust=self.trust_scores(),
                                              known_cases=self.tables.cases.by_id(), settings=self.settings, now=now))
        planned.cases = dict(zip(planned.cases, sign_cases(list(planned.cases.values()), self.identity(),
                                                           self.agent_id)))
        return planned

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
