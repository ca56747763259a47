"""The Agent's verbs on the quarantine as a person reviews it: disputes, verdicts,
reopenings, the verdicts other reviewers shared, a person's own disputes and the reviewers
honoured here (a part of the facade, kept apart for its size)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import reviewer_keys
from .errors import BadInput
from .model.enums import Keep

if TYPE_CHECKING:
    from .config import Home, Settings
    from .exchange import Exchange
    from .identity import Identity
    from .peers import Peers
    from .quarantine.disputes import Disputes
    from .quarantine.service import Quarantine
    from .reports import DecidedDispute, DisputeReport
    from .store.port import Repository
    from .store.tables import Tables
    from .upkeep import Upkeep
    from .writer import Writer


class ReviewVerbs:
    """Mixed into Agent, whose quarantine, disputes view, writer, exchange, home, repository,
    tables, settings, key and `_sharing_remote` these use."""

    home: Home
    quarantine: Quarantine
    disputes_view: Disputes
    writer: Writer
    exchange: Exchange
    tables: Tables
    repo: Repository
    upkeep: Upkeep
    settings: Settings
    identity: Identity
    peers_view: Peers
    agent_id: str

    def side_row(self, memory_id: str):
        """A row a dispute's side stands on, here or (held only there) on the quarantine
        branch; None where neither holds it."""
        from .errors import NotFound
        from .model.refs import QUARANTINE_BRANCH

        for ref in (None, QUARANTINE_BRANCH):
            try:
                return self.tables.memories.require(memory_id, as_of=ref)
            except NotFound:
                continue
        return None

    @staticmethod
    def stance_of(content: str, stance: str | None, phase: float | None) -> float:
        """The stance a claim takes, as a phase: its writer's explicit one, else what its
        wording says (the estimator merges use)."""
        from .judge.stance import estimate

        if stance is not None and phase is not None:
            return phase
        return float(estimate(content))

    def cases(self, status: str | None = None) -> list[dict]:
        return self.quarantine.list(status)

    def case(self, case_id: str) -> dict:
        return self.quarantine.show(case_id)

    def disputes(self, status: str | None = None) -> list[DisputeReport]:
        """Disagreements grouped by claim: escalated first, oldest first; status "open"
        (pending or escalated), "pending", "escalated", "resolved" or None (all)."""
        return self.disputes_view.list(status)

    def dispute(self, dispute_id: str) -> DisputeReport:
        return self.disputes_view.show(dispute_id)

    def resolve_dispute(self, dispute_id: str, *, keep: str, text: str | None = None, note: str | None = None,
                        by: str | None = None, remote: str | None = None, supersede: bool = False) -> DecidedDispute:
        """A person's verdict on a whole dispute (every case of it), signed with their reviewer
        key, then shared (with the corrected memory, for merged). `dispute_id` may name one of
        its cases; keep a and b are then that case's. `supersede` replaces the verdict standing
        on a resolved dispute. NotShared when recorded here but not pushed."""
        dispute = self.disputes_view.check(dispute_id, keep, text, note=note, supersede=supersede)  # bad input first
        reviewer, name = self.reviewer_key(by)
        remote_name = self._sharing_remote(remote)
        merged = None if keep != Keep.MERGED else self.writer.compose(
            text, parents=[dispute["a"]["memory"], dispute["b"]["memory"]], importance=0.9)
        resolved = self.disputes_view.resolve(dispute_id, keep=keep, note=note, by=name, reviewer=reviewer,
                                              text=text, merged=merged, supersede=supersede)
        if merged is not None and remote_name is not None:
            return self.exchange.share_verdict(resolved, remote_name)
        return self.quarantine.share_after("verdict", resolved, remote_name)

    def reopen_dispute(self, dispute_id: str, *, note: str | None = None, by: str | None = None,
                       remote: str | None = None) -> DecidedDispute:
        """Undo the verdict standing on a resolved dispute, signed with the reviewer's key, then
        shared: every agent that honours the reviewer withdraws the verdict and lists the
        dispute as open again. NotShared when recorded here but not pushed."""
        self.disputes_view.check_reopening(dispute_id, note)  # bad input is said before a missing key
        reviewer, name = self.reviewer_key(by)
        remote = self._sharing_remote(remote)
        reopened = self.disputes_view.reopen(dispute_id, note=note, by=name, reviewer=reviewer)
        return self.quarantine.share_after("reopening", reopened, remote)

    def check_decision(self, dispute_id: str, *, note: str | None, keep: str | None = None,
                       text: str | None = None) -> DisputeReport:
        """The dispute a verdict (`keep`) or a reopening (no keep) is for, once what the person
        gave is valid; BadInput else, before anything is taken or written. Whether a verdict
        stands on it is not asked: that may change before the decision is recorded."""
        from .model import validate_note
        from .model.enums import CaseStatus

        if keep is None:
            validate_note(note)
            return self.disputes_view.show(dispute_id)
        resolved = self.disputes_view.show(dispute_id)["status"] == CaseStatus.RESOLVED
        return self.disputes_view.check(dispute_id, keep, text, note=note, supersede=resolved)

    def take_verdicts(self, remote: str | None = None) -> dict | None:
        """The quarantine as reviewers shared it on the commons, taken as a pull takes it (its
        verdicts, reopenings and cases, checked; no peer's memories): a person about to decide
        sees first a verdict another reviewer gave meanwhile. None when there is no remote to
        ask; RemoteUnreachable (or another CollectiveError) when it cannot be read."""
        from .model.refs import QUARANTINE_BRANCH

        remote_name = self._sharing_remote(remote)
        if remote_name is None or not self.repo.remote_head(remote_name, QUARANTINE_BRANCH):
            return None  # no remote, or nobody shared a case there yet
        return self.quarantine.take_from(remote_name)

    def open_dispute(self, memory_a: str, memory_b: str, *, why: str, by: str | None = None,
                     remote: str | None = None) -> DecidedDispute:
        """A person disputes two claims held here that no merge paired, signed with their
        reviewer key (Challenges.open_for), then shared: every holder lists an escalated
        dispute opened by them. Bad input writes nothing. NotShared when recorded here but
        not pushed."""
        from .model import validate_note
        from .roster.service import require_reviewer

        a, b = self.challenger.disputable(memory_a, memory_b)
        validate_note(why, "why")
        reviewer, name = self.reviewer_key(by)
        require_reviewer(self.tables, reviewer.public_key, name)
        remote_name = self._sharing_remote(remote)
        cid, head = self.challenger.open_for(a, b, why=why, reviewer=reviewer, name=name)
        return self.quarantine.share_after("dispute", {**self.dispute(cid), "commit": head, "resolved_cases": [],
                                                       "reopened_cases": [cid]}, remote_name)

    def reviewer_key(self, by: str | None = None) -> tuple[Identity, str]:
        """The reviewer key that signs a person's decisions (`by`, else the default one) and its
        name; BadInput when there is none."""
        name = by or reviewer_keys.default_name(self.home)
        if name is None:
            raise BadInput("by", "no reviewer key to sign with: run `cmem reviewer init --name NAME`, "
                                 "or name one with --by")
        return reviewer_keys.load(self.home, name), name

    def reviewers(self) -> list[dict]:
        return self.quarantine.reviewers()

    def add_reviewer(self, name: str, public_key: str) -> dict:
        """Honour this reviewer's verdicts; those kept until now take effect."""
        return self.quarantine.add_reviewer(reviewer_keys.validate_name(name), public_key)

    def remove_reviewer(self, name: str) -> dict:
        return self.quarantine.remove_reviewer(name)
