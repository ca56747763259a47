"""Disputes as a person reviews them: list, show and resolve a disagreement between two
claims, whatever number of cases (pairs of copies) it gathered on the way.

A verdict on a dispute is recorded on each of its open cases, each signed by the
reviewer as a case verdict is (signing.verdict_document, with the dispute it
decides), so the shared rows, their checks and their once-only application stay
those of a case; each case's keep is the dispute's, seen from that case's side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..core import trust
from ..errors import BadInput, NotFound
from ..identity import Identity
from ..model import Case, Memory, events, iso, utcnow, validate_note, validate_text
from ..model.enums import AWAITING_REVIEWER, CaseStatus, Keep
from ..model.refs import QUARANTINE_BRANCH
from ..reports import DecidedDispute, DisputeReport, DisputeSide, Reopening, Verdict
from ..roster import service as roster
from .cases import resolution, revision, validate_keep, withdrawing
from . import grouping, signing, verdicts
from .closing import CLOSED, closed_because, closed_cases
from .service import Quarantine

if TYPE_CHECKING:
    from ..peers import Peers
    from ..store.port import Repository
    from ..store.tables import Tables

OPEN = "open"
STATUS_CHOICES = (OPEN, *tuple(CaseStatus), CLOSED)
_ORDER = {CaseStatus.ESCALATED: 0, CaseStatus.PENDING: 1, CaseStatus.RESOLVED: 2, CLOSED: 3}


class Disputes:
    def __init__(self, repo: Repository, tables: Tables, peers: Peers, quarantine: Quarantine, *, agent_id: str,
                 reason: Callable[[str, str, float], str] | None = None):
        self.reason = reason  # the judge's reason for two texts at a similarity (loaded when first asked)
        self.repo = repo
        self.tables = tables
        self.peers = peers
        self.quarantine = quarantine
        self.agent_id = agent_id

    # --- reading -------------------------------------------------------------
    def list(self, status: str | None = None) -> list[DisputeReport]:
        """Escalated first, then pending, then resolved; oldest first within each."""
        if status is not None and status not in STATUS_CHOICES:
            raise BadInput("status", f"must be one of {', '.join(STATUS_CHOICES)}, got {status!r}")
        groups = self._groups()
        scores, applied = self.peers.trust_scores(), self.tables.applied_verdicts.case_ids()
        every = [c for cases in groups.values() for c in cases]
        copies = self._copies(every)  # one walk for every dispute
        closed = closed_cases(self.repo, self.tables, every)
        out = [self._describe(did, cases, scores, applied, copies, closed) for did, cases in groups.items()]
        out = [d for d in out if status is None or d["status"] == status
               or (status == OPEN and d["status"] not in (CaseStatus.RESOLVED, CLOSED))]
        return sorted(out, key=lambda d: (_ORDER[d["status"]], d["opened_at"], d["dispute"]))

    def show(self, dispute_id: str) -> DisputeReport:
        """One dispute; a case id of it finds it too."""
        did, cases = self._group(dispute_id)
        return self._describe(did, cases, self.peers.trust_scores(), self.tables.applied_verdicts.case_ids(),
                              self._copies(cases), closed_cases(self.repo, self.tables, cases))

    def of_memory(self, memory_id: str) -> dict | None:
        """The dispute a memory (or a copy of it) stands in: {"dispute", "status"}, or None."""
        mine = verdicts.copies(self.tables, memory_id, holder=self.agent_id)
        for did, cases in self._groups().items():
            if any(mine & set(c.pair) for c in cases):
                return {"dispute": did, "status": grouping.status(cases, closed_cases(self.repo, self.tables, cases))}
        return None

    def _group(self, dispute_id: str) -> tuple[str, list[Case]]:
        if not isinstance(dispute_id, str) or not dispute_id:
            raise NotFound("dispute", f"no dispute {dispute_id!r}")
        for did, cases in self._groups().items():
            if did == dispute_id or any(c.id == dispute_id for c in cases):
                return did, cases
        raise NotFound("dispute", f"no dispute {dispute_id!r} (see `cmem quarantine list`)")

    def _groups(self) -> dict[str, list[Case]]:
        """The disputes: the cases grouped by the links that count here (joins.py)."""
        return grouping.members(self.quarantine.counted(self.tables.cases.all()))

    def _copies(self, cases: list[Case]) -> dict[str, set[str]]:
        ids = {m for c in cases for m in c.pair}
        return verdicts.copies_of(self.tables, ids, holder=self.agent_id)

    def _describe(self, did: str, cases: list[Case], scores: dict[str, float], applied: set[str],
                  copies: dict[str, set[str]], closed: dict[str, list[str]]) -> DisputeReport:
        root = next((c for c in cases if c.id == did), cases[0])
        ordered = [root, *[c for c in cases if c is not root]]
        flipped, side_a, side_b = grouping.orient(ordered, copies)
        agents = sorted({a for c in cases for a in (c.agent_a, c.agent_b)})
        resolved = next((c for c in ordered if c.resolved), None)
        a = self._side(root.memory_id_a, root.agent_a, side_a, scores)
        b = self._side(root.memory_id_b, root.agent_b, side_b, scores)
        reason = self.reason(a["content"], b["content"], root.similarity) \
            if self.reason and a["content"] and b["content"] else ""
        status = grouping.status(cases, closed)
        gone = {m: why for c in cases for m, why in closed.get(c.id, {}).items()}
        applied_here = sorted(c.id for c in cases if c.id in applied)
        return {"dispute": did, "status": status, "cases": [c.id for c in cases],
                "case_count": len(cases), "agents": agents, "opened_at": min(c.created_at for c in cases),
                "similarity": root.similarity, "phase_diff": root.phase_diff, "reason": reason,
                "a": a, "b": b,
                "resolution": _resolution(resolved, flipped) if resolved else None,
                "reopened": _reopened(ordered),
                "applied": applied_here,
                "closed": {"reason": ", ".join(sorted(set(gone.values()))), "memories": sorted(gone)}
                if status == CLOSED else None,
                "awaiting": AWAITING_REVIEWER if status == CaseStatus.RESOLVED and not applied_here else None}

    def _memory(self, memory_id: str) -> Memory | None:
        found = self.tables.memories.get(memory_id)
        if found is None and QUARANTINE_BRANCH in self.repo.branches():
            found = self.tables.memories.get(memory_id, as_of=QUARANTINE_BRANCH)
        return found

    def _side(self, memory_id: str, agent: str, ids: set[str], scores: dict[str, float]) -> DisputeSide:
        m = self._memory(memory_id)
        origins = {r["id"]: r["origin_agent"]
                   for r in self.tables.memories.rows_by_id(sorted(ids), columns=("id", "origin_agent"))}
        origin = m.origin_agent if m else agent
        return {"memory": memory_id, "content": m.content if m else "", "summary": m.summary if m else "",
                "origin_agent": origin, "trust": scores.get(origin, trust.START) if origin != self.agent_id else 1.0,
                "amplitude": m.amplitude if m else 0.0, "disputed": m.disputed if m else True,
                "refuted_by": m.refuted_by if m else None, "valid_until": m.valid_until if m else None,
                "copies": [{"memory": i, "origin_agent": origins.get(i)} for i in sorted(ids - {memory_id})],
                "parents": list(m.parents) if m else []}

    # --- a person's verdict ----------------------------------------------------
    def check(self, dispute_id: str, keep: str, text: str | None, *, note: str | None = None,
              supersede: bool = False) -> dict:
        """The dispute a verdict is about, once the verdict is known to be valid (else BadInput)."""
        validate_keep(keep)
        if note is not None:  # a note may be left out here, never blank
            validate_note(note)
        if keep == Keep.MERGED:
            if text is None or not validate_text(text, "text").strip():
                raise BadInput("text", "merged needs the corrected statement (--text)")
        elif text is not None:
            raise BadInput("text", "only a merged verdict takes a corrected statement")
        dispute = self.show(dispute_id)
        if dispute["status"] == CLOSED:
            raise BadInput("dispute", f"{dispute['dispute']} is closed ({dispute['closed']['reason']}): "
                                      f"{closed_because(dispute['closed'])}")
        if dispute["status"] == CaseStatus.RESOLVED and not supersede:
            raise BadInput("dispute", f"{dispute['dispute']} is already resolved (a reviewer may supersede "
                                      "its verdict: --supersede, or reopen it)")
        if supersede and dispute["status"] != CaseStatus.RESOLVED:
            raise BadInput("supersede", f"{dispute['dispute']} is {dispute['status']}: there is no verdict to "
                                        "supersede")
        return dispute

    def resolve(self, dispute_id: str, *, keep: str, note: str | None, by: str, reviewer: Identity,
                text: str | None = None, merged: Memory | None = None, supersede: bool = False) -> DecidedDispute:
        """Record the verdict on every open case of the dispute (on every case, superseding
        the verdict that stands), signed with the reviewer's key; it takes effect here when
        this agent honours that reviewer. One commit (with the corrected memory, for merged)."""
        dispute = self.check(dispute_id, keep, text, note=note, supersede=supersede)
        roster.require_reviewer(self.tables, reviewer.public_key, by)
        did, cases = self._group(dispute["dispute"])
        root = next((c for c in cases if c.id == did), cases[0])  # named for a case held elsewhere
        flipped, _, _ = grouping.orient([root, *[c for c in cases if c is not root]], self._copies(cases))
        keep = grouping.side_keep(keep, flipped.get(dispute_id, False))  # named by a case: its a and b
        decided = {"dispute": did, "dispute_keep": keep, "text": text, "memory": merged.id if merged else None}
        deciding = [c for c in cases if supersede or not c.resolved]
        decided.update(_withdrawing(deciding))
        rows = self._signed(deciding, cases, lambda c: grouping.side_keep(keep, flipped[c.id]), note=note, by=by,
                            reviewer=reviewer, decided=decided)
        verb = "supersede the verdict on" if supersede else "resolve"
        head = self._record(rows, f"quarantine: {verb} dispute {did} keep {keep} ({len(rows)} case(s))",
                            merged=merged)
        return {**self.show(did), "commit": head, "resolved_cases": [r.id for r in rows], "reopened_cases": []}

    def check_reopening(self, dispute_id: str, note: str | None) -> dict:
        """The resolved dispute a reopening is about, once the reopening is known to be valid."""
        if note is not None:
            validate_note(note)
        dispute = self.show(dispute_id)
        if dispute["status"] != CaseStatus.RESOLVED:
            raise BadInput("dispute", f"{dispute['dispute']} is {dispute['status']}: only a resolved dispute "
                                      "can be reopened")
        return dispute

    def reopen(self, dispute_id: str, *, note: str | None, by: str, reviewer: Identity) -> DecidedDispute:
        """Undo the verdict that stands on a resolved dispute: each case holding it gets a signed
        reopening, which stands over the verdict it saw (cases.verdict_order), so every agent
        withdraws that verdict and lists the dispute as open (escalated) again."""
        dispute = self.check_reopening(dispute_id, note)
        roster.require_reviewer(self.tables, reviewer.public_key, by)
        did, cases = self._group(dispute["dispute"])
        reopening = [c for c in cases if c.resolved]
        rows = self._signed(reopening, cases, lambda c: Keep.REOPEN, note=note, by=by, reviewer=reviewer,
                            decided={"dispute": did, "dispute_keep": Keep.REOPEN, **_withdrawing(reopening)})
        head = self._record(rows, f"quarantine: reopen dispute {did} ({len(rows)} case(s))")
        return {**self.show(did), "commit": head, "resolved_cases": [], "reopened_cases": [r.id for r in rows]}

    def _signed(self, deciding: list[Case], cases: list[Case], keep_of: Callable[[Case], str], *,
                note: str | None, by: str, reviewer: Identity, decided: dict) -> list[Case]:
        """The cases with a verdict document each, signed; its revision is the next after any
        verdict the dispute's cases hold, so it stands over every verdict this reviewer saw."""
        now = iso(utcnow())
        if "withdraws" in decided:  # a memory withdrawn by this verdict: from its time
            decided = {**decided, "withdraws": {m: at or now for m, at in decided["withdraws"].items()}}
        held = [revision(c.decision()) for c in cases if c.resolution]
        after = max(held) + 1 if held else 0
        rows = []
        for case in deciding:
            document = signing.verdict_document(case, keep=keep_of(case), note=note, by=by,
                                                reviewer_key=reviewer.public_key, agent=self.agent_id, at=now,
                                                dispute=decided, revision=after)
            rows.append(resolution(case, document=document, signature=reviewer.sign(document.encode("utf-8")),
                                   at=now))
        return rows

    def _record(self, rows: list[Case], message: str, *, merged: Memory | None = None) -> str:
        """Write the signed cases (and the corrected memory) and apply what stands: one commit."""
        with self.repo.transaction():
            if merged is not None:
                self.tables.memories.insert([merged])
                self.tables.outbox.add(events.stored([merged], []))
            self.tables.cases.write(rows)
            self.quarantine.apply_authorised(rows)
            for row in rows:
                if row.resolved:
                    self.tables.outbox.add(events.resolved(row))
            head = self.repo.commit(message, author=self.agent_id)
        self.quarantine.upkeep.after_commit()
        return head


def _withdrawing(cases: list[Case]) -> dict:
    """{"withdraws": {memory: when}} for a verdict or reopening over the verdicts these cases
    hold: what they made is withdrawn with them (its time filled in when signed), what they
    withdrew stays withdrawn. Empty when they made none, so a document reads as before."""
    found = withdrawing(cases, "")
    return {"withdraws": {m: at or None for m, at in sorted(found.items())}} if found else {}


def _resolution(case: Case, flipped: dict[str, bool]) -> Verdict:
    decision = case.decision()
    keep = decision.get("dispute_keep") or grouping.side_keep(decision["keep"], flipped.get(case.id, False))
    return {"keep": keep, "note": decision.get("note", ""), "by": decision.get("by"), "at": decision.get("at"),
            "text": decision.get("text"), "memory": decision.get("memory")}


def _reopened(cases: list[Case]) -> Reopening | None:
    """Who reopened the dispute, when and why, while a reopening stands on it."""
    reopening = next((c.decision() for c in cases if c.resolution and c.decision()["keep"] == Keep.REOPEN), None)
    if reopening is None:
        return None
    return {"by": reopening.get("by"), "at": reopening.get("at"), "note": reopening.get("note", ""),
            "opens": bool(reopening.get("opens"))}
