"""Quarantine cases: ids, escalation, how two copies of a case merge, and what a
person's resolution does. Pure: the agent reads and writes the rows, as Case records
(model/case.py).

A case is one disputed pair of memories. Its id is a hash of the sorted pair,
so two agents that open the same dispute produce the same row and, after they
sync, one case.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Iterable, Mapping, assert_never

from ..errors import BadInput
from ..model.case import Case
from ..model.enums import CaseStatus, Keep

STATUSES = tuple(CaseStatus)
KEEP_CHOICES = tuple(k for k in Keep if k != Keep.REOPEN)  # what a verdict decides; reopen is its own verb


def case_id(memory_a: str, memory_b: str) -> str:
    first, second = sorted([memory_a, memory_b])
    return hashlib.sha256(f"{first}|{second}".encode()).hexdigest()[:32]


def escalate(status: str, dispute_count: int, threshold: int) -> str:
    if status == CaseStatus.PENDING and dispute_count >= threshold:
        return CaseStatus.ESCALATED
    return status


def _opening(case: Case) -> tuple:
    """Which copy's view of the pair a merge keeps: the earliest opening, ties broken
    by the measured values, so the choice never depends on who merges whom."""
    return (case.created_at, case.similarity, case.phase_diff, case.memory_id_a, case.memory_id_b,
            case.agent_a, case.agent_b, case.opened_by or "", case.opening_signature or "")


def merge_cases(ours: Case | None, theirs: Case | None) -> Case:
    """Two copies of one case, as two agents saw it: counts take the larger value,
    the further status wins, the earliest opening is kept, the verdict first in
    `verdict_order` stands (and sets the status when it reopened the case).

    A join (commutative, associative, idempotent), so copies meeting in any order
    on any agent converge to the same row.
    """
    if ours is None or theirs is None:
        return ours or theirs  # type: ignore[return-value]
    opening = min(ours, theirs, key=_opening)
    counted = min(ours, theirs, key=_count)  # the count travels with its signer's signature
    # the smallest link, with its maker's signature (a link names a smaller id than its case:
    # grouping.py); between two makers of the same link, a fixed choice: a join too
    links = [c for c in (ours, theirs) if c.dispute]
    link = min(links, key=lambda c: (c.dispute, c.dispute_by or "", c.dispute_signature or "")) if links else None
    verdicts = [c for c in (ours, theirs) if c.resolution]
    first = min(verdicts, key=verdict_order) if verdicts else None
    status = max(ours.status, theirs.status, key=lambda s: s.rank)
    if first is not None:
        status = verdict_status(first.decision())
    return opening.replace(
        dispute_count=counted.dispute_count, counted_by=counted.counted_by, count_signature=counted.count_signature,
        dispute=link.dispute if link else None, dispute_by=link.dispute_by if link else None,
        dispute_signature=link.dispute_signature if link else None,
        status=status, resolution=first.resolution if first else None, resolved_at=first.resolved_at if first else None,
        verdict_signature=first.verdict_signature if first else None)


def revision(decision: Mapping) -> int:
    """A verdict document's revision: 0 for a first verdict; a reviewer who supersedes or
    reopens the verdict standing signs the next one (documents before revisions have none)."""
    return decision.get("revision", 0)


def verdict_status(decision: Mapping) -> CaseStatus:
    """Where a verdict document leaves its case: resolved, or escalated again by a reopening."""
    return CaseStatus.ESCALATED if decision["keep"] == Keep.REOPEN else CaseStatus.RESOLVED


def verdict_order(case: Case) -> tuple:
    """Which of two verdicts on a case stands (the smaller): the higher revision, so a
    reviewer's supersede or reopen wins over what it saw; between verdicts of one revision,
    made without seeing each other, a digest of their reviewer and act, the same on every
    case one act decided (a dispute keeps one verdict), never a time: a writer cannot
    backdate its way ahead. The signature last, so two documents alike but for it still
    pick one whatever the order."""
    decision = case.decision()
    act = hashlib.sha256(f"{decision.get('reviewer_key')}|{decision.get('at')}".encode()).hexdigest()
    return (-revision(decision), act, case.resolution or "", case.verdict_signature or "")


def _count(case: Case) -> tuple:
    """The largest count first; between equal counts, a fixed choice of signer."""
    return (-case.dispute_count, case.counted_by or "", case.count_signature or "")


def joined(*case_lists: Iterable[Case]) -> dict[str, Case]:
    merged: dict[str, Case] = {}
    for cases in case_lists:
        for case in cases:
            merged[case.id] = merge_cases(merged.get(case.id), case)
    return merged


def changed_cases(merged: Mapping[str, Case], before: Mapping[str, Case]) -> list[Case]:
    """The merged cases that are new or differ from what `before` held."""
    return [c for cid, c in merged.items() if c != before.get(cid)]


@dataclass(frozen=True)
class Effects:
    """What a verdict does on a holder: disputed flags, refutations and trust verdicts."""

    disputed: dict[str, bool]          # memory id -> flag afterwards
    verdicts: list[tuple[str, str]]    # (agent id, trust reason)
    partial: bool                      # link the pair as partly agreeing (keep both)
    refuted: tuple[str, ...] = ()      # the memories on the losing side(s)
    winners: tuple[str, ...] = ()      # the memories whose dispute penalty is given back


def validate_keep(keep: str) -> str:
    if keep not in KEEP_CHOICES:
        raise BadInput("keep", f"must be one of {', '.join(KEEP_CHOICES)}, got {keep!r}")
    return keep


def resolution(case: Case, *, document: str, signature: str, at: str) -> Case:
    """The case after a person decided (or reopened it): the signed verdict document and its
    signature. Whether it may replace the verdict the case holds is the caller's to check."""
    return case.replace(status=verdict_status(json.loads(document)), resolution=document, verdict_signature=signature, resolved_at=at)


def effects(case: Case) -> Effects:
    """What the case's verdict does; every kind of verdict (Keep) is named here, once."""
    a, b = case.pair
    match Keep(case.decision()["keep"]):
        case Keep.A:
            return Effects({a: False, b: True}, [(case.agent_a, "verdict_for"), (case.agent_b, "verdict_against")],
                           False, (b,), (a,))
        case Keep.B:
            return Effects({a: True, b: False}, [(case.agent_b, "verdict_for"), (case.agent_a, "verdict_against")],
                           False, (a,), (b,))
        case Keep.BOTH:
            return Effects({a: False, b: False}, [], True, (), (a, b))
        case Keep.MERGED:
            return Effects({a: False, b: False}, [], False, (a, b), ())
        case Keep.REOPEN:
            return Effects({}, [], False, (), ())
        case unknown:
            assert_never(unknown)


def refuter(decision: Mapping, case: Case) -> str:
    """What a verdict's refuted_by names: the corrected memory (merged), else the dispute."""
    return decision.get("memory") or decision.get("dispute") or case.id


@dataclass(frozen=True)
class Standing:
    """Where verdicts applied here leave the memories they name, for merges that meet them
    later: the losers (refuted, by what and since when), the winners (what their opponents
    are refuted by) and the memories verdicts made (merged: never refuted on arrival)."""

    losers: dict[str, tuple[str, str]]
    winners: dict[str, tuple[str, str]]
    made: frozenset[str]
    # the memories made by verdicts since withdrawn (reopened or superseded): refuted by name only
    withdrawn: dict[str, tuple[str, str]] = field(default_factory=dict)


def standing(resolved: Iterable[Case]) -> Standing:
    """The Standing of the verdicts of these resolved (and applied) cases."""
    losers: dict[str, tuple[str, str]] = {}
    winners: dict[str, tuple[str, str]] = {}
    made = set()
    for case in sorted(resolved, key=lambda c: c.id):
        decision = case.decision()
        refuted_by = (refuter(decision, case), decision.get("at") or "")
        effect = effects(case)
        for memory_id in effect.refuted:
            losers.setdefault(memory_id, refuted_by)
        if effect.refuted:
            for memory_id in effect.winners:
                winners.setdefault(memory_id, refuted_by)
        if decision.get("memory"):
            made.add(decision["memory"])
    return Standing(losers, winners, frozenset(made))


def withdrawn(cases: Iterable[Case]) -> dict[str, tuple[str, str]]:
    """The memories that verdicts made and later verdicts on their cases withdrew: a
    reopening or a superseding verdict names them (`withdraws`: memory -> when), and each
    later one carries them on, so the case's standing document always names them. Each is
    refuted by the dispute, from the time it was withdrawn."""
    out: dict[str, tuple[str, str]] = {}
    for case in cases:
        decision = case.decision() or {}
        for memory_id, at in sorted((decision.get("withdraws") or {}).items()):
            found = (decision.get("dispute") or case.id, at)
            out[memory_id] = min(out.get(memory_id, found), found)
    return out


def withdrawing(cases: Iterable[Case], at: str) -> dict[str, str]:
    """What a new verdict on these cases withdraws: the memories the verdicts they hold made,
    from `at`, and those those verdicts withdrew already, from when they did."""
    out: dict[str, str] = {}
    for case in cases:
        decision = case.decision() or {}
        if decision.get("memory"):
            out.setdefault(decision["memory"], at)
        for memory_id, when in (decision.get("withdraws") or {}).items():
            out[memory_id] = min(out.get(memory_id, when), when)
    return out


NO_STANDING = Standing({}, {}, frozenset())
