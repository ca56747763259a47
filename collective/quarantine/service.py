"""The quarantine as an agent keeps it: list, show, resolve, and the shared branch.

Cases live in the agent's `quarantine` table and travel on the shared
`collective/quarantine` branch, rebuilt on the commons' head as a join of
the cases (cases.union) each time it is shared, so agents that share at the
same moment converge; a lost race retries.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..core import trust
from ..errors import BadInput, CollectiveError, NonFastForward, NotFound
from ..model import events, iso, utcnow
from ..model.enums import CaseStatus, LinkType
from ..model.refs import MAIN_BRANCH, QUARANTINE_BRANCH, tracking
from ..peers import Peers
from ..runtime.retry import retrying
from ..store.tables import Tables
from ..upkeep import Upkeep
from . import cases as rules

if TYPE_CHECKING:
    from ..store.port import Repository

SHARE_ATTEMPTS = 4
HISTORY_DEPTH = 200  # commits searched for a case's history


class CaseUnshared(CollectiveError):
    """collective/quarantine could not be pushed: others kept pushing in between."""


def case_dict(row: dict) -> dict:
    """The documented shape of a case: its row with the resolution parsed."""
    out = dict(row)
    out["resolution"] = json.loads(row["resolution"]) if row.get("resolution") else None
    return out


class Quarantine:
    def __init__(self, repo: Repository, tables: Tables, peers: Peers, upkeep: Upkeep, *, agent_id: str, branch: str):
        self.repo = repo
        self.tables = tables
        self.peers = peers
        self.upkeep = upkeep
        self.agent_id = agent_id
        self.branch = branch

    # --- reading -------------------------------------------------------------
    def list(self, status: str | None = None) -> list[dict]:
        if status is not None and status not in CaseStatus.__members__.values():
            raise BadInput("status", f"must be one of {', '.join(CaseStatus)}, got {status!r}")
        return [case_dict(r) for r in self.tables.cases.all(status=status)]

    def show(self, case_id: str) -> dict:
        """A case with both memories (from the working branch, else the quarantine branch),
        the holder's trust in each origin, and the commits that name it."""
        case = case_dict(self._row(case_id))
        scores = self.peers.trust_scores()
        for side in ("a", "b"):
            memory_id = case[f"memory_id_{side}"]
            found = self.tables.memories.get(memory_id)
            if found is None and QUARANTINE_BRANCH in self.repo.branches():
                found = self.tables.memories.get(memory_id, as_of=QUARANTINE_BRANCH)
            case[side] = {**(found.to_dict() if found else {"id": memory_id}),
                          "trust": scores.get(case[f"agent_{side}"], trust.START)}
        named = (case_id, case["memory_id_a"], case["memory_id_b"])
        case["history"] = [c.to_dict() for c in self.repo.log(self.branch, limit=HISTORY_DEPTH)
                           if any(n in c.message for n in named)]
        return case

    def _row(self, case_id: str) -> dict:
        row = self.tables.cases.get(case_id)
        if row is None:
            raise NotFound("case", f"no quarantine case {case_id!r}")
        return row

    # --- a person's verdict ----------------------------------------------------
    def check_verdict(self, case_id: str, keep: str) -> dict:
        """The case a verdict is about, once the verdict is known to be valid (else BadInput)."""
        rules.validate_keep(keep)
        return self._row(case_id)

    def resolve(self, case_id: str, *, keep: str, note: str | None, by: str) -> dict:
        """Record a verdict, with who and why; flags and trust follow. One commit."""
        case = self.check_verdict(case_id, keep)
        now = iso(utcnow())
        resolved = rules.resolution(case, keep=keep, note=note, by=by, agent=self.agent_id, at=now)
        with self.repo.transaction():
            self.tables.cases.write([resolved])
            self.apply_verdict(resolved)
            self.tables.outbox.add(events.resolved(resolved))
            head = self.repo.commit(f"quarantine: resolve {case_id} keep {keep}", author=self.agent_id)
        self.upkeep.after_commit()
        return {**case_dict(resolved), "commit": head}

    def apply_verdict(self, case: dict) -> None:
        """Flags, links and trust after a verdict; the caller holds the transaction."""
        effect = rules.effects(case)
        decision = json.loads(case["resolution"])
        now = iso(utcnow())
        for memory_id, disputed in effect.disputed.items():
            self.tables.memories.set(memory_id, disputed=int(disputed), updated_at=now)
        if effect.consensus:
            self.tables.links.write([{"source_id": case["memory_id_a"], "target_id": case["memory_id_b"],
                                      "link_type": LinkType.CONSENSUS, "weight": 1.0,
                                      "created_by": self.agent_id, "created_at": now}])
        self.peers.move(effect.verdicts, verifier=decision.get("by", "reviewer"), at=now,
                        evidence={"case_id": case["id"], "memory_ids": [case["memory_id_a"], case["memory_id_b"]]})

    # --- the shared branch -------------------------------------------------------
    def take_from(self, remote: str) -> int:
        """Take the commons' view of the cases into the working branch (one commit if
        anything changed); verdicts new to this agent take effect. The caller fetched."""
        remote_ref = tracking(remote, QUARANTINE_BRANCH)
        if remote_ref not in self.repo.remote_branches():
            return 0
        ours = self.tables.cases.by_id()
        merged = rules.union(list(ours.values()), self.tables.cases.all(as_of=remote_ref))
        changed = rules.changed(merged, ours)
        if not changed:
            return 0
        # The disputed memories stay on the quarantine branch until a pull brings them
        # from their origins: taking them here would skip their classification.
        with self.repo.transaction():
            self.tables.cases.write(changed)
            for case in changed:
                before = ours.get(case["id"])
                if case["status"] == CaseStatus.RESOLVED and (before is None or before["status"] != CaseStatus.RESOLVED):
                    self.apply_verdict(case)
            self.repo.commit(f"quarantine: take {len(changed)} case(s) from {remote}", author=self.agent_id)
        self.upkeep.after_commit()
        return len(changed)

    def share(self, remote: str) -> dict:
        """Publish our cases and their disputed pairs on collective/quarantine, at once.
        The caller fetched; a lost race fetches again and rebuilds on the new head."""
        remote_ref = tracking(remote, QUARANTINE_BRANCH)
        ours = self.tables.cases.all()
        if not ours and remote_ref not in self.repo.remote_branches():
            return {"pushed": False, "cases": 0}
        try:
            return retrying(lambda: self._share_once(remote, ours), retry_on=NonFastForward,
                            attempts=SHARE_ATTEMPTS, before_retry=lambda _: self.repo.fetch(remote))
        except NonFastForward:
            raise CaseUnshared(f"could not push {QUARANTINE_BRANCH} to {remote} after {SHARE_ATTEMPTS} attempts") from None

    def _share_once(self, remote: str, ours: list[dict]) -> dict:
        remote_ref = tracking(remote, QUARANTINE_BRANCH)
        base = remote_ref if remote_ref in self.repo.remote_branches() else MAIN_BRANCH
        self.repo.create_branch_at(QUARANTINE_BRANCH, base)
        theirs = self.tables.cases.by_id(as_of=QUARANTINE_BRANCH)
        merged = rules.union(list(theirs.values()), ours)
        changed = rules.changed(merged, theirs)
        if changed:
            ids = sorted({m for c in changed for m in (c["memory_id_a"], c["memory_id_b"])})
            pair_rows = self.tables.memories.rows_by_id(ids)
            with self.repo.on_branch(QUARANTINE_BRANCH), self.repo.transaction():
                self.tables.cases.write(changed)
                self.tables.memories.write_rows(pair_rows)
                self.repo.commit(f"quarantine: {self.agent_id} shares {len(changed)} case(s)", author=self.agent_id)
        if base == remote_ref and not changed:
            return {"pushed": False, "cases": len(merged)}
        self.repo.push(remote, QUARANTINE_BRANCH)
        return {"pushed": True, "cases": len(merged), "changed": len(changed)}
