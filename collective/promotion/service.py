"""Promotions to main as an agent keeps them: propose, endorse, a person's decision,
the list, and their travel.

Proposals and endorsements are rows of this agent's working branch and travel on the
shared `collective/quarantine` branch beside the cases, rebuilt on the commons' head
and retried on a race (as the cases are). Every row taken from the commons is
checked first (rules.check): what does not verify is ignored and reported. When a
proposal is due (a person this agent honours approved it, or two agents other than
its origin endorsed it), this agent lands it on main (consensus.land).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..errors import BadInput, BranchContested, CollectiveError, NonFastForward, NotFound, NotShared, StorageError
from ..identity import Identity, endorsement
from ..model import Endorsement, Promotion, iso, utcnow, validate_note
from ..model.enums import AWAITING_REVIEWER
from ..model.refs import MAIN_BRANCH, QUARANTINE_BRANCH, tracking
from ..peers import Peers
from ..roster import service as roster
from ..runtime.retry import retrying
from ..store.tables import Tables
from ..upkeep import Upkeep
from . import consensus, rules

if TYPE_CHECKING:
    from ..store.port import Repository

SHARE_ATTEMPTS = 4


class Promotions:
    def __init__(self, repo: Repository, tables: Tables, peers: Peers, upkeep: Upkeep, *,
                 identity: Callable[[], Identity], agent_id: str, branch: str):
        self.repo = repo
        self.tables = tables
        self.peers = peers
        self.upkeep = upkeep
        self.identity = identity
        self.agent_id = agent_id
        self.branch = branch

    # --- reading -------------------------------------------------------------------
    def list(self, status: str | None = rules.PENDING) -> list[dict]:
        """Proposals as this agent sees them, oldest first; `status` None for all."""
        if status is not None and status not in rules.STATUSES:
            raise BadInput("status", f"must be one of {', '.join(rules.STATUSES)}, got {status!r}")
        on_main = {r["id"] for r in self.tables.memories.rows(as_of=MAIN_BRANCH, columns=("id",))}
        commits = consensus.promoting_commits(self.repo) if on_main else {}
        out = [self._describe(row, on_main, commits) for row in self.tables.promotions.by_id().values()]
        return [p for p in out if status is None or p["status"] == status]

    def show(self, memory_id: str) -> dict:
        row = self._row(memory_id)
        on_main = {memory_id} if consensus.on_main(self.tables, memory_id) else set()
        return self._describe(row, on_main, consensus.promoting_commits(self.repo) if on_main else {})

    def _row(self, memory_id: str) -> Promotion:
        row = self.tables.promotions.get(memory_id)
        if row is None:
            raise NotFound("memory", f"no promotion proposed for {memory_id!r} (propose it with `cmem promote`)")
        return row

    def _standing(self, row: Promotion, on_main: set[str]) -> rules.Standing:
        authority = self._authority()
        return rules.standing(row, self.tables.endorsements.of(row.memory_id), authorised=authority.reviewer_keys,
                              on_main=row.memory_id in on_main, endorsers_allowed=authority.endorsers,
                              needed=authority.needed)

    def _describe(self, row: Promotion, on_main: set[str], commits: dict[str, str]) -> dict:
        """The documented shape of a proposal; `commits`: memory id -> the commit that promoted it."""
        standing = self._standing(row, on_main)
        memory = self._memory_row(row.memory_id) or {}
        decision = standing.decision
        return {"memory": row.memory_id, "summary": memory.get("summary", ""), "content": memory.get("content", ""),
                "origin_agent": row.origin_agent, "proposed_by": row.proposed_by,
                "proposed_at": row.proposed_at, "note": row.note, "endorsements": list(standing.endorsers),
                "status": standing.status,
                "decided_by": decision["by"] if decision else None,
                "decision": {k: decision[k] for k in ("approve", "note", "by", "at")} if decision else None,
                "awaiting": AWAITING_REVIEWER if decision and not standing.honoured else None,
                "commit": commits.get(row.memory_id) if standing.status == rules.PROMOTED else None}

    def _memory_row(self, memory_id: str) -> dict | None:
        """The memory as held here, else as on main or on the shared branch (its proposer
        put it there), so an agent that does not hold it can still read and promote it."""
        refs = [None, MAIN_BRANCH] + [r for r in [QUARANTINE_BRANCH, *self.repo.remote_branches()]
                                      if r.endswith(QUARANTINE_BRANCH) and self._has(r)]
        for ref in refs:
            rows = self.tables.memories.rows_by_id([memory_id], as_of=ref)
            if rows:
                return rows[0]
        return None

    def _has(self, ref: str) -> bool:
        return ref in self.repo.branches() or ref in self.repo.remote_branches()

    # --- what an agent or a person does ---------------------------------------------
    def propose(self, memory_id: str, *, note: str | None) -> dict:
        """Propose a memory this agent holds for main: one signed row, one commit."""
        if note is not None:  # a note may be left out, never blank
            validate_note(note)
        memory = self.tables.memories.require(memory_id)
        if memory.retracted:
            raise BadInput("memory", f"{memory_id} was retracted by its origin")
        if consensus.on_main(self.tables, memory_id):
            raise BadInput("memory", f"{memory_id} is already on main")
        held = self.tables.promotions.get(memory_id)
        if held is not None:
            raise BadInput("memory", f"{memory_id} was already proposed by {held.proposed_by}")
        row = rules.proposal(self.identity(), memory_id=memory_id, origin_agent=memory.origin_agent,
                             proposed_by=self.agent_id, at=iso(utcnow()), note=note)
        return self._record([row], [], f"promotions: propose {memory_id}")

    def endorse(self, memory_id: str) -> dict:
        """This agent's signed support for a pending proposal of another agent's memory."""
        row = self._pending(memory_id)
        if row.origin_agent == self.agent_id:
            raise BadInput("memory", f"{memory_id} is {self.agent_id}'s own memory: an agent cannot endorse its own")
        if any(e.agent_id == self.agent_id for e in self.tables.endorsements.of(memory_id)):
            raise BadInput("memory", f"{memory_id} is already endorsed by {self.agent_id}")
        signed = endorsement(self.identity(), memory_id, self.agent_id, iso(utcnow()))
        return self._record([], [signed], f"promotions: {self.agent_id} endorses {memory_id}")

    def check_decision(self, memory_id: str, note: str) -> Promotion:
        """The pending proposal a decision is about, once the decision is known to be valid."""
        validate_note(note)
        return self._pending(memory_id)

    def decide(self, memory_id: str, *, approve: bool, note: str, by: str, reviewer: Identity) -> dict:
        """A person's approval or rejection, signed with their reviewer key: one commit."""
        row = self.check_decision(memory_id, note)
        roster.require_reviewer(self.tables, reviewer.public_key, by)
        document = {"approve": approve, "note": note, "by": by, "agent": self.agent_id, "at": iso(utcnow())}
        verb = "approve" if approve else "reject"
        return self._record([rules.decided(row, reviewer, **document)], [], f"promotions: {by} {verb}s {memory_id}")

    def _pending(self, memory_id: str) -> Promotion:
        row = self._row(memory_id)
        on_main = {memory_id} if consensus.on_main(self.tables, memory_id) else set()
        status = self._standing(row, on_main).status
        if status != rules.PENDING:
            raise BadInput("memory", f"the promotion of {memory_id} is {status}, not pending")
        return row

    def _record(self, promotions: list[Promotion], endorsements: list[Endorsement], message: str) -> dict:
        memory_id = (promotions or endorsements)[0].memory_id
        with self.repo.transaction():
            self.tables.promotions.write(promotions)
            self.tables.endorsements.write(endorsements)
            head = self.repo.commit(message, author=self.agent_id)
        self.upkeep.after_commit()
        return {**self.show(memory_id), "recorded": head}

    # --- travel ---------------------------------------------------------------------
    def share_after(self, what: str, result: dict, remote: str | None) -> dict:
        """`result` (committed here) with the exchange through the commons added, and the
        proposal as it stands afterwards; NotShared, carrying the result, when it failed."""
        if remote is None:
            return {**result, "promotions": {"pushed": False}}
        try:
            exchanged = self.exchange(remote)
        except CollectiveError as e:
            raise NotShared(what, e, {**result, "promotions": {"pushed": False, "error": str(e)}}) from e
        after = self.show(result["memory"]) if "memory" in result else {}
        return {**result, **after, "promotions": exchanged}

    def exchange(self, remote: str, *, fetched: bool = False) -> dict:
        """Bring the commons' consensus and proposals in, land what is due, share ours.
        Unfetched (after a push), only when this agent keeps proposals."""
        if not fetched:
            if not self.tables.promotions.by_id():
                return {"consensus_moved": False, "taken": 0, "refused": {}, "main_refused": {}, "promoted": [],
                        "pushed": False}
            self.repo.fetch(remote)
        followed, unverified = self.follow_main(remote)
        taken = self.take_from(remote)
        landed = self.settle(remote) if not unverified else []  # nothing lands on a main not followed
        for refused in (r["main_refused"] for r in landed if "main_refused" in r):
            unverified = refused  # the commons' main moved to one not followed while landing
        shared = self.share(remote)
        return {"consensus_moved": followed, "taken": taken["taken"], "refused": taken["refused"],
                "main_refused": unverified, "promoted": [r for r in landed if "main_refused" not in r], **shared}

    def follow_main(self, remote: str) -> tuple[bool, dict[str, list[str]]]:
        """The commons' main taken when every commit on the way checks (consensus.follow)."""
        return consensus.follow(self.repo, self.tables, remote, key_of=self.peers.signer_keys(remote),
                                authority=self._authority() if roster.held(self.tables) else None)

    def _authority(self) -> consensus.Authority:
        following = roster.held(self.tables)
        if following is None:
            return consensus.Authority(self.tables.reviewers.keys(), None, rules.ENDORSEMENTS_NEEDED)
        return consensus.Authority(following.reviewer_keys(), following.endorsers(), following.endorsements)

    def take_from(self, remote: str) -> dict:
        """The commons' proposals, decisions and endorsements, checked, into the working
        branch (one commit if anything changed). The caller fetched."""
        ref = tracking(remote, QUARANTINE_BRANCH)
        if ref not in self.repo.remote_branches():
            return {"taken": 0, "refused": {}}
        checked = self._checked(ref, remote)
        held = {e.key for e in self.tables.endorsements.all()}
        promotions = rules.join(self.tables.promotions.by_id(), checked.promotions)
        endorsements = [e for e in checked.endorsements if e.key not in held]
        if promotions or endorsements:
            with self.repo.transaction():
                self.tables.promotions.write(promotions)
                self.tables.endorsements.write(endorsements)
                self.repo.commit(f"promotions: take {len(promotions) + len(endorsements)} row(s) from {remote}",
                                 author=self.agent_id)
            self.upkeep.after_commit()
        return {"taken": len(promotions) + len(endorsements), "refused": checked.refused}

    def _checked(self, ref: str, remote: str) -> rules.Checked:
        try:
            promotions = list(self.tables.promotions.by_id(as_of=ref).values())
            endorsements = self.tables.endorsements.all(as_of=ref)
        except StorageError:  # the shared branch predates promotions
            return rules.Checked()
        return self._check_rows(promotions, endorsements, remote)

    def _check_rows(self, promotions: list[Promotion], endorsements: list[Endorsement], remote: str) -> rules.Checked:
        """Shared rows checked; a decision by no reviewer of the roster (when there is one) left out."""
        following = roster.held(self.tables)
        return rules.check(promotions, endorsements, self.peers.signer_keys(remote),
                           reviewer_keys=following.reviewer_keys() if following else None)

    def settle(self, remote: str) -> list[dict]:
        """Land every proposal due here that the commons' main does not hold yet."""
        on_main = {r["id"] for r in self.tables.memories.rows(as_of=MAIN_BRANCH, columns=("id",))}
        key_of = self.peers.signer_keys(remote)
        landed = []
        for row in self.tables.promotions.by_id().values():
            standing = self._standing(row, on_main)
            memory = self._memory_row(row.memory_id) if standing.due else None
            if memory is None or memory["origin_agent"] != row.origin_agent \
                    or not rules.signed_by_origin(memory, key_of):
                continue  # only the memory its origin signed reaches main
            endorsements = [e for e in self.tables.endorsements.of(row.memory_id) if e.agent_id in standing.endorsers]
            landed.append(consensus.land(self.repo, self.tables, remote, memory_row=memory, promotion=row,
                                         endorsements=endorsements, reason=standing.reason, author=self.agent_id,
                                         follow=lambda: self.follow_main(remote)))
            if "main_refused" in landed[-1]:
                break  # the commons' main is not ours to build on: the rest wait for it to be put back
            on_main.add(row.memory_id)
        return landed

    def share(self, remote: str) -> dict:
        """Publish our proposals, decisions and endorsements (and the proposed memories)
        on collective/quarantine. The caller fetched; a lost race fetches and rebuilds."""
        if not self.tables.promotions.by_id():
            return {"pushed": False}
        ref = tracking(remote, QUARANTINE_BRANCH)
        try:  # most often the commons has all of ours: say so without building a branch
            if ref in self.repo.remote_branches() and not any(self._unshared(ref, remote)):
                return {"pushed": False}
        except StorageError:  # the shared branch predates promotions: the share migrates it
            pass
        try:
            return retrying(lambda: self._share_once(remote), retry_on=NonFastForward, attempts=SHARE_ATTEMPTS,
                            before_retry=lambda _: self.repo.fetch(remote))
        except NonFastForward:
            raise BranchContested(QUARANTINE_BRANCH, remote, SHARE_ATTEMPTS) from None

    def _unshared(self, ref: str, remote: str) -> tuple[list[Promotion], list[Endorsement]]:
        """Our proposals and endorsements that `ref` lacks or holds only as forgeries. A row
        `ref` holds exactly as we do is shared, even where our check sets it aside (a signer
        our roster does not name): writing it again would change nothing, and a commit of
        nothing fails."""
        raw_promotions = self.tables.promotions.by_id(as_of=ref)
        raw_endorsements = self.tables.endorsements.all(as_of=ref)
        theirs = self._check_rows(list(raw_promotions.values()), raw_endorsements, remote)
        promotions = [p for p in rules.join({r.memory_id: r for r in theirs.promotions},
                                            list(self.tables.promotions.by_id().values()))
                      if raw_promotions.get(p.memory_id) != p]
        held = {e.key for e in theirs.endorsements}
        as_held = {e.key: e for e in raw_endorsements}
        return promotions, [e for e in self.tables.endorsements.all() if e.key not in held and as_held.get(e.key) != e]

    def _share_once(self, remote: str) -> dict:
        ref = tracking(remote, QUARANTINE_BRANCH)
        base = ref if ref in self.repo.remote_branches() else MAIN_BRANCH
        self.repo.create_branch_at(QUARANTINE_BRANCH, base)
        with self.repo.on_branch(QUARANTINE_BRANCH):  # made by an agent of an older schema
            self.repo.migrate(author=self.agent_id, now=iso(utcnow()))
        promotions, endorsements = self._unshared(QUARANTINE_BRANCH, remote)
        if promotions or endorsements:
            memories = self.tables.memories.rows_by_id([p.memory_id for p in promotions])
            with self.repo.on_branch(QUARANTINE_BRANCH), self.repo.transaction():
                self.tables.promotions.write(promotions)
                self.tables.endorsements.write(endorsements)
                self.tables.memories.write_rows(memories)
                self.tables.agents.write(self.tables.agents.get(self.agent_id, as_of=self.branch))
                self.repo.commit(f"promotions: {self.agent_id} shares {len(promotions) + len(endorsements)} row(s)",
                                 author=self.agent_id)
        elif base == ref:
            return {"pushed": False}
        self.repo.push(remote, QUARANTINE_BRANCH)
        return {"pushed": True, "changed": len(promotions) + len(endorsements)}
