"""The quarantine as an agent keeps it: cases, verdicts taking effect, reviewers, the shared branch.

Cases live in the agent's `quarantine` table and travel on the shared
`collective/quarantine` branch, rebuilt on the commons' head as a join of
the cases (cases.joined) each time it is shared, so agents that share at the
same moment converge; a lost race retries. Every row taken from the commons
is checked first (signing.check_cases): what does not verify is ignored and
reported. A verdict takes effect only when its reviewer is one this agent's
operator authorised (`reviewers`); until then it is kept, awaiting one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

from ..core import trust, wave
from ..errors import BadInput, BranchContested, CollectiveError, NonFastForward, NotFound, NotShared
from ..identity import Identity, valid_public_key
from ..model import Case, Memory, iso, utcnow
from ..model.enums import AWAITING_REVIEWER, CaseStatus, Keep
from ..model.refs import MAIN_BRANCH, QUARANTINE_BRANCH, tracking
from ..peers import Peers
from ..roster import service as roster
from ..runtime.retry import retrying
from ..store.tables import MemoryTable, Tables
from ..upkeep import Upkeep
from .cases import changed_cases, effects, joined, standing
from . import grouping, joins, signing, verdicts
from .refutation import Refutations

if TYPE_CHECKING:
    from ..store.port import Repository

SHARE_ATTEMPTS = 4
HISTORY_DEPTH = 200  # commits searched for a case's history


def case_dict(case: Case, applied: set[str] | None = None) -> dict:
    """The documented shape of a case: its row with the resolution parsed, and whether
    its verdict took effect here (`applied`) or awaits an authorised reviewer."""
    out = case.to_row()
    out["resolution"] = case.decision()
    if applied is not None:
        out["applied"] = case.resolved and case.id in applied
        out["awaiting"] = AWAITING_REVIEWER if case.resolved and not out["applied"] else None
    return out


class Quarantine:
    def __init__(self, repo: Repository, tables: Tables, peers: Peers, upkeep: Upkeep, refutations: Refutations, *,
                 agent_id: str, branch: str, threshold: int, identity: Callable[[], Identity],
                 amplitude_cap: float = wave.AMPLITUDE_CAP, penalty: float = wave.DISPUTE_PENALTY):
        self.repo = repo
        self.refutations = refutations
        self.identity = identity  # this agent's key of now (it may rotate): signs the dispute links it makes
        self.tables = tables
        self.peers = peers
        self.upkeep = upkeep
        self.agent_id = agent_id
        self.branch = branch
        self.threshold = threshold
        self.amplitude_cap, self.penalty = amplitude_cap, penalty
        self.proven = signing.Proven()  # shared case rows' signatures verified by this process
        self._same: dict[tuple[str, str], bool] = {}  # pairs of held memories: the same claim or not

    # --- reading -------------------------------------------------------------
    def list(self, status: str | None = None) -> list[dict]:
        if status is not None and status not in CaseStatus.__members__.values():
            raise BadInput("status", f"must be one of {', '.join(CaseStatus)}, got {status!r}")
        applied = self.tables.applied_verdicts.case_ids()
        return [case_dict(r, applied) for r in self.tables.cases.all(status=status)]

    def show(self, case_id: str) -> dict:
        """A case with both memories (from the working branch, else the quarantine branch),
        the holder's trust in each origin, and the commits that name it."""
        case = case_dict(self._row(case_id), self.tables.applied_verdicts.case_ids())
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

    def _row(self, case_id: str) -> Case:
        row = self.tables.cases.get(case_id)
        if row is None:
            raise NotFound("case", f"no quarantine case {case_id!r}")
        return row

    # --- a person's verdict (recorded by disputes.Disputes) ---------------------------
    def apply_authorised(self, cases: Iterable[Case]) -> list[str]:
        """Apply each resolved case's verdict once, when an authorised reviewer signed it.
        A verdict applied here that no longer stands on its case (another came first,
        cases.merge_cases, or it was set aside) is withdrawn first, whether or not the one
        standing now is authorised here: what a holder has applied is the verdict each
        case holds, or none. The caller holds the transaction. Returns the ids applied now."""
        authorised, done = roster.reviewer_keys(self.tables), self.tables.applied_verdicts.by_case()
        applied, losers, lifted = [], [], []
        for case in cases:
            # what a verdict made and this one withdraws is settled by name (refuted now)
            lifted += list((case.decision() or {}).get("withdraws") or ())
            before = done.get(case.id)
            if before is not None and before["verdict_signature"] not in (None, case.verdict_signature):
                withdrawn = case.replace(resolution=before["resolution"])
                lifted += verdicts.withdraw(self.tables, withdrawn, now=iso(utcnow()))
                losers += effects(withdrawn).refuted
                lifted += _spared(withdrawn)  # no longer spared by it: the rule may refute them now
                self.tables.applied_verdicts.remove(case.id)
            elif before is not None:
                continue  # applied already (a verdict applied before schema 009 has no signature kept)
            key = signing.verdict_key(case)
            if not case.resolved or key not in authorised:
                continue
            self.apply_verdict(case)
            self.tables.applied_verdicts.add(case, key, at=iso(utcnow()))
            applied.append(case.id)
            losers += effects(case).refuted
            lifted += _spared(case)  # spared by it now: a refutation the rule gave them before goes
        if losers or lifted:
            self.refutations.after_losers(losers, also=lifted, now=iso(utcnow()))
        return applied

    def apply_verdict(self, case: Case) -> None:
        """Refutations, flags, links and trust after a verdict; the caller holds the transaction."""
        verdicts.apply(self.tables, self.peers, case, agent_id=self.agent_id, amplitude_cap=self.amplitude_cap,
                       penalty=self.penalty, now=iso(utcnow()))

    # --- reviewers ---------------------------------------------------------------
    def reviewers(self) -> list[dict]:
        return self.tables.reviewers.all()

    def add_reviewer(self, name: str, public_key: str) -> dict:
        """Honour a reviewer's verdicts from now on; verdicts of theirs kept so far take effect.
        Not on an agent that follows a roster: the roster names the reviewers."""
        following = roster.held(self.tables)
        if following is not None:
            raise BadInput("reviewer", f"this agent follows the roster of {following.collective}, which names the "
                                       "reviewers: an owner adds one with `cmem collective add-reviewer`")
        if not valid_public_key(public_key):
            raise BadInput("public_key", "is not a base64 Ed25519 public key (as `cmem reviewer init` prints it)")
        row = {"name": name, "public_key": public_key, "added_at": iso(utcnow())}
        with self.repo.transaction():
            self.tables.reviewers.write(row)
            applied = self.apply_authorised(self.tables.cases.all(status=CaseStatus.RESOLVED))
            self.repo.commit(f"reviewers: add {name}", author=self.agent_id)
        self.upkeep.after_commit()
        return {**row, "applied": applied}

    def remove_reviewer(self, name: str) -> dict:
        """Honour no more verdicts of this reviewer (those applied stay applied)."""
        row = self.tables.reviewers.get(name)
        if row is None:
            raise NotFound("reviewer", f"no reviewer named {name!r}")
        with self.repo.transaction():
            self.tables.reviewers.remove(name)
            self.repo.commit(f"reviewers: remove {name}", author=self.agent_id)
        self.upkeep.after_commit()
        return row

    # --- the shared branch -------------------------------------------------------
    def take_from(self, remote: str) -> dict:
        """Take the commons' view of the cases into the working branch (one commit if
        anything changed), each row checked first; verdicts of authorised reviewers new
        to this agent take effect. The caller fetched.

        Returns {"taken", "opened": [case ids new here], "verdicts" and "reopened": [the
        disputes whose verdict or reopening took effect here], "refused": {reason: count},
        "refused_cases": {reason: [ids]}}."""
        remote_ref = tracking(remote, QUARANTINE_BRANCH)
        report = {"taken": 0, "opened": [], "verdicts": [], "reopened": [], "refused": {}, "refused_cases": {}}
        if remote_ref not in self.repo.remote_branches():
            return report
        ours = self.tables.cases.by_id()
        checked = self.check(self.tables.cases.all(as_of=remote_ref), remote, ours)
        merged = joined(self._authorised(list(ours.values()), checked), checked.kept)
        changed = changed_cases(merged, ours)
        report.update(taken=len(changed), opened=sorted(c.id for c in changed if c.id not in ours),
                      refused=checked.counts(), refused_cases=checked.refused)
        if not changed:
            return report
        # The disputed memories stay on the quarantine branch until a pull brings them
        # from their origins: taking them here would skip their classification.
        with self.repo.transaction():
            self.tables.cases.write(changed)
            applied = self.apply_authorised(changed)
            self.repo.commit(f"quarantine: take {len(changed)} case(s) from {remote}", author=self.agent_id)
        self.upkeep.after_commit()
        # a reopening withdraws a verdict and applies none: it is news wherever the case held another resolution
        # (one a reviewer opened, `opens`, is news as opened: it withdrew nothing)
        reopened = [c for c in changed if c.resolution and c.decision()["keep"] == Keep.REOPEN
                    and not _opens(c) and (c.id not in ours or ours[c.id].resolution != c.resolution)]
        report.update(verdicts=_disputes([c for c in changed if c.id in applied and c not in reopened]),
                      reopened=_disputes(reopened))
        return report

    def regroup(self) -> int:
        """Record which open cases share a dispute, as this agent's copies show it (one commit
        when any link is new; a pull's cost stays with the open cases). Returns how many
        cases were linked."""
        rows = self.tables.cases.all(status=[CaseStatus.PENDING, CaseStatus.ESCALATED])
        if len(rows) < 2:
            return 0
        ids = {m for c in rows for m in c.pair}
        links = grouping.regroup(rows, verdicts.copies_of(self.tables, ids, holder=self.agent_id))
        if not links:
            return 0
        by_id = {c.id: c for c in rows}
        with self.repo.transaction():
            self.tables.cases.write([signing.sign_link(by_id[cid].replace(dispute=target), self.identity(),
                                                       self.agent_id) for cid, target in sorted(links.items())])
            self.repo.commit(f"quarantine: {len(links)} case(s) join a dispute", author=self.agent_id)
        self.upkeep.after_commit()
        return len(links)

    def counted(self, rows: list[Case]) -> list[Case]:
        """The cases with the links that count here (joins.py): a link joins two cases of the
        same two claims, or one an honoured reviewer's verdict joined, never on its maker's
        word alone."""
        if not any(c.dispute or c.resolution for c in rows):
            return rows
        return joins.counted(rows, self._same_claim, roster.reviewer_keys(self.tables), signing.verdict_key)

    def _same_claim(self, x: str, y: str) -> bool:
        """Whether two memories make the same claim, as every holder decides it; False while
        either is not held here (a pull brings it; the link counts from then on). Memories
        never change their claim, so an answer on two held memories is kept."""
        if x == y:
            return True
        key = (min(x, y), max(x, y))
        if key not in self._same:
            held = self.tables.memories.by_id(list(key))
            if len(held) < 2:
                return False
            if len(self._same) >= signing.Proven.LIMIT:
                self._same.clear()
            self._same[key] = self.refutations.same(held[key[0]], held[key[1]])
        return self._same[key]

    def check(self, rows: list[Case], remote: str, held: dict[str, Case]) -> signing.Checked:
        """The shared rows whose signatures verify (see signing.check_cases); a row the
        same as the one `held` here was checked when it came (or is ours)."""
        same = {r.id for r in rows if held.get(r.id) == r}
        checked = signing.check_cases([r for r in rows if r.id not in same], self.peers.signer_keys(remote),
                                      threshold=self.threshold, proven=self.proven)
        checked.kept += [r for r in rows if r.id in same]
        checked.kept = self._authorised(checked.kept, checked)
        return checked

    def _authorised(self, rows: list[Case], checked: signing.Checked) -> list[Case]:
        """On an agent that follows a roster, the rows without a verdict no roster reviewer
        signed (it closes nothing and blocks nobody) and without a dispute link no roster
        agent made, reported in `checked`. Our own rows too: one taken before the roster
        was, or by an agent that followed none."""
        following = roster.held(self.tables)
        if following is None:
            return rows
        agents = {m.name for m in following.agents}
        return [signing.authorised_only(r, following.reviewer_keys(), agents, self.threshold, checked) for r in rows]

    def share_after(self, what: str, result: dict, remote: str | None) -> dict:
        """`result` (work committed here) with the sharing of the cases added; NotShared,
        carrying the result, when the commons did not take them."""
        if remote is None:
            return {**result, "quarantine": {"pushed": False}}
        try:
            return {**result, "quarantine": self.share(remote)}
        except CollectiveError as e:
            raise NotShared(what, e, {**result, "quarantine": {"pushed": False, "error": str(e)}}) from e

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
            raise BranchContested(QUARANTINE_BRANCH, remote, SHARE_ATTEMPTS) from None

    def _share_once(self, remote: str, ours: list[Case]) -> dict:
        remote_ref = tracking(remote, QUARANTINE_BRANCH)
        base = remote_ref if remote_ref in self.repo.remote_branches() else MAIN_BRANCH
        self.repo.create_branch_at(QUARANTINE_BRANCH, base)
        with self.repo.on_branch(QUARANTINE_BRANCH):  # made by an agent of an older schema, or from our old main
            self.repo.migrate(author=self.agent_id, now=iso(utcnow()))
        theirs = self.tables.cases.by_id(as_of=QUARANTINE_BRANCH)
        # rows that do not verify are left out of the join: our copy replaces them
        merged = joined(self.check(list(theirs.values()), remote, {c.id: c for c in ours}).kept, ours)
        changed = changed_cases(merged, theirs)
        if changed:
            ids = sorted({m for c in changed for m in c.pair})
            pair_rows = self.tables.memories.rows_by_id(ids)
            with self.repo.on_branch(QUARANTINE_BRANCH), self.repo.transaction():
                self.tables.cases.write(changed)
                self.tables.memories.write_rows(_unshared(pair_rows, self.tables.memories))
                # our key beside the cases we sign, for peers that never saw our branch
                self.tables.agents.write(self.tables.agents.get(self.agent_id, as_of=self.branch))
                # allow_empty: another process of this agent (a second pull) may have committed these
                # same rows on the shared branch since we read it, which leaves nothing to commit
                self.repo.commit(f"quarantine: {self.agent_id} shares {len(changed)} case(s)", author=self.agent_id,
                                 allow_empty=True)
        if base == remote_ref and not changed:
            return {"pushed": False, "cases": len(merged)}
        self.repo.push(remote, QUARANTINE_BRANCH)
        return {"pushed": True, "cases": len(merged), "changed": len(changed)}


def _disputes(cases: list[Case]) -> list[str]:
    """The disputes these cases' verdicts name (a verdict decides every case of its dispute)."""
    return sorted({c.decision().get("dispute") or c.id for c in cases})


def _unshared(rows: list[dict], shared: MemoryTable) -> list[dict]:
    """The memory rows the quarantine branch (`shared`, checked out) lacks, or holds with
    another claim, text or signature (a retraction; a row someone altered). One it holds as
    we do differs only in this holder's own state (amplitude, times): rewriting it changed
    every disputed row at every share, and every agent's fetch carried all those versions."""
    columns = (*Memory.CLAIM_COLUMNS, "content", "signature")
    held = {r["id"]: r for r in shared.rows_by_id([r["id"] for r in rows], columns=columns)}
    return [r for r in rows if r["id"] not in held or any(held[r["id"]][c] != r[c] for c in columns)]


def _spared(case: Case) -> list[str]:
    """The memories a verdict spares from the refutation rule (the winners and made memories
    its Standing names): when it takes effect or is withdrawn, their refutation is decided
    again, or a holder that met the verdicts in another order would keep another answer (the
    simulator found one)."""
    spared = standing([case])
    return [*spared.winners, *spared.made]


def _opens(case: Case) -> bool:
    """Whether the case's standing reopening is the one a reviewer opened it with."""
    return bool(case.decision().get("opens"))
