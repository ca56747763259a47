"""Signatures on the shared quarantine rows, and their checks.

A case row carries four signed parts, each vouched for by whoever made it:

- the opening (the pair, its agents, the measures, the time), by the agent that opened it;
- the dispute count, by the agent that last raised it;
- the link to the dispute it joined, by the agent that linked it;
- the verdict, by the reviewer whose public key it names. The verdict document
  (the `resolution` column, signed byte for byte) names the case and the pair it
  decides, so a verdict copied onto another case is a replay, not a verdict, and
  its revision (cases.verdict_order: which verdict stands); a reopening is a verdict
  document too (keep "reopen").

A pull keeps a part only when its signature verifies; whether a verdict is
applied is a separate question (is its reviewer authorised here?).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from ..identity import Identity, canonical, verify, verify_many
from ..model.case import Case
from ..model.enums import CaseStatus, Keep
from .cases import escalate, resolution

OPENING_FIELDS = ("opened_by", "opening_signature")
COUNT_FIELDS = ("counted_by", "count_signature")
VERDICT_FIELDS = ("verdict_signature",)

# why a shared row, or part of it, was ignored
UNSIGNED_CASE = "unsigned_case"
FORGED_CASE = "forged_case"
TAMPERED_COUNT = "tampered_count"
FORGED_VERDICT = "forged_verdict"
REPLAYED_VERDICT = "replayed_verdict"
MALFORMED_VERDICT = "malformed_verdict"  # signed, but no verdict this version knows (keep)
UNSIGNED_LINK = "unsigned_dispute_link"  # a dispute link its maker did not sign (or a writer moved)
UNAUTHORISED_VERDICT = "unauthorised_verdict"  # by a key the collective's roster names as no reviewer
UNAUTHORISED_LINK = "unauthorised_dispute_link"  # made by an agent the roster does not name


# The claims below are the bytes already stored signatures cover: their keys and values
# must stay exactly as they are (tests/unit/test_shared_records.py holds them).
def opening_claim(case: Case) -> bytes:
    return canonical({"kind": "case.opening", "id": case.id, "memory_id_a": case.memory_id_a,
                      "memory_id_b": case.memory_id_b, "agent_a": case.agent_a, "agent_b": case.agent_b,
                      "similarity": case.similarity, "phase_diff": case.phase_diff,
                      "created_at": case.created_at, "opened_by": case.opened_by})


def count_claim(case: Case) -> bytes:
    return canonical({"kind": "case.count", "id": case.id, "dispute_count": case.dispute_count,
                      "counted_by": case.counted_by})


def link_claim(case: Case) -> bytes:
    return canonical({"kind": "case.dispute", "id": case.id, "dispute": case.dispute, "by": case.dispute_by})


def sign_link(case: Case, identity: Identity, agent_id: str) -> Case:
    """The case linked to its dispute by this agent, signed."""
    case = case.replace(dispute_by=agent_id)
    return case.replace(dispute_signature=identity.sign(link_claim(case)))


def unlinked(case: Case) -> Case:
    return case.replace(dispute=None, dispute_by=None, dispute_signature=None)


def sign_cases(cases: Sequence[Case], identity: Identity, agent_id: str) -> list[Case]:
    """Cases this agent opened or whose count it raised, signed: the opening when one has
    none yet, the count always. The signatures of many are made together, on every core."""
    # Every claim is made from the case as it will be written, and all are signed in one
    # batch: a pull opens thousands of cases, and each copy of a case costs.
    final = [case.replace(counted_by=agent_id, **({} if case.opening_signature else {"opened_by": agent_id}))
             for case in cases]
    fresh = [i for i, case in enumerate(final) if not case.opening_signature]
    signatures = identity.sign_many([*(opening_claim(final[i]) for i in fresh), *map(count_claim, final)])
    openings = dict(zip(fresh, signatures))
    counts = signatures[len(fresh):]
    return [case.replace(count_signature=count, **({"opening_signature": openings[i]} if i in openings else {}))
            for i, (case, count) in enumerate(zip(final, counts))]


def verdict_document(case: Case, *, keep: str, note: str | None, by: str, reviewer_key: str,
                     agent: str, at: str, dispute: Mapping | None = None, revision: int = 0) -> str:
    """The resolution column: the verdict and the case it decides, as the reviewer signs it;
    `dispute` adds the dispute it decides as a whole (its id, its keep, a merged text and memory);
    `revision` is named from the first supersede or reopen on (a first verdict reads as before)."""
    return canonical({**(dispute or {}), **({"revision": revision} if revision else {}), "kind": "case.verdict", "case_id": case.id, "memory_id_a": case.memory_id_a,
                      "memory_id_b": case.memory_id_b, "agent_a": case.agent_a, "agent_b": case.agent_b,
                      "keep": keep, "note": note or "", "by": by, "reviewer_key": reviewer_key,
                      "recorded_by": agent, "at": at}).decode("utf-8")


def verdict_key(case: Case) -> str | None:
    """The public key of the reviewer a resolved case's verdict names."""
    if not case.resolution:
        return None
    try:
        return json.loads(case.resolution).get("reviewer_key")
    except (ValueError, AttributeError):
        return None


def _verdict_problem(case: Case) -> str | None:
    signature, document = case.verdict_signature, case.resolution
    key = verdict_key(case)
    if not signature or not key or not verify(key, document.encode("utf-8"), signature):
        return FORGED_VERDICT
    decided = json.loads(document)
    if (decided.get("memory_id_a"), decided.get("memory_id_b")) != case.pair \
            or (decided.get("agent_a"), decided.get("agent_b")) != (case.agent_a, case.agent_b) \
            or decided.get("case_id") != case.id or decided.get("at") != case.resolved_at:
        return REPLAYED_VERDICT  # a genuine verdict, but on another case
    revision = decided.get("revision", 0)
    if decided.get("keep") not in tuple(Keep) or type(revision) is not int or revision < 0:
        return MALFORMED_VERDICT
    return None


@dataclass
class Checked:
    """Shared case rows after their signatures were checked."""

    kept: list[Case] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)   # reason -> case ids

    def refuse(self, reason: str, case_id: str) -> None:
        self.refused.setdefault(reason, []).append(case_id)

    def counts(self) -> dict[str, int]:
        return {reason: len(ids) for reason, ids in sorted(self.refused.items())}


def check_cases(rows: Sequence[Case], key_of: Callable[[str], Sequence[str]], *, threshold: int,
                proven: Proven | None = None) -> Checked:
    """Keep the rows whose opening and count verify against their signers' keys (the key
    held for each, and the keys it rotated away from); a row whose verdict does not
    verify, or decides another case, is kept without it, and one whose dispute link its
    maker did not sign, without the link. `proven`: the parts this process verified before
    against a key the signer still has, and where those verified now are kept. Every part is
    checked against the keys of now, whatever row is held here: an agent that holds a row
    must decide it as one that does not, or the two would never agree."""
    checked = Checked()
    parts = [_signed_parts(row) for row in rows]
    signed = _vouched(parts, key_of, proven if proven is not None else Proven())

    def vouched(part: tuple[str, bytes, str] | None) -> bool:
        return part is not None and part[1:] in signed

    for row, part in zip(rows, parts):
        if "opening" not in part or "count" not in part:
            checked.refuse(UNSIGNED_CASE, row.id)
            continue
        if not vouched(part["opening"]):
            checked.refuse(FORGED_CASE, row.id)
            continue
        if not vouched(part["count"]):
            checked.refuse(TAMPERED_COUNT, row.id)
            continue
        if row.dispute and not vouched(part.get("link")):
            checked.refuse(UNSIGNED_LINK, row.id)
            row = unlinked(row)
        if row.resolved or row.resolution:
            problem = _verdict_problem(row)
            if problem is not None:
                checked.refuse(problem, row.id)
                row = unresolved(row, threshold)
            else:  # the status its verdict gives, whatever the writer put beside it
                row = resolution(row, document=row.resolution, signature=row.verdict_signature, at=row.resolved_at)
        checked.kept.append(row)
    return checked


def _signed_parts(row: Case) -> dict[str, tuple[str, bytes, str]]:
    """(signer, claim, signature) of each part of a row its signer vouches for, by part:
    the opening, the count and the dispute link, where the row carries them signed."""
    parts = {"opening": (row.opened_by, opening_claim, row.opening_signature),
             "count": (row.counted_by, count_claim, row.count_signature)}
    if row.dispute:
        parts["link"] = (row.dispute_by, link_claim, row.dispute_signature)
    return {name: (who, claim(row), signature) for name, (who, claim, signature) in parts.items()
            if who and signature}


class Proven:
    """The signed parts this process verified, as (key, claim, signature): a pull's share
    checks the counts its take of the cases checked a moment before. Forgotten whole when
    it reaches LIMIT, so a long-lived agent's memory stays bounded."""

    LIMIT = 100_000

    def __init__(self) -> None:
        self.parts: set[tuple[str, bytes, str]] = set()

    def knows(self, keys: Sequence[str], claim: bytes, signature: str) -> bool:
        return any((key, claim, signature) in self.parts for key in keys)

    def add(self, key: str, claim: bytes, signature: str) -> None:
        if len(self.parts) >= self.LIMIT:
            self.parts.clear()
        self.parts.add((key, claim, signature))


def _vouched(parts: Sequence[Mapping[str, tuple[str, bytes, str]]], key_of: Callable[[str], Sequence[str]],
             proven: Proven) -> set[tuple[bytes, str]]:
    """The (claim, signature) of every signed part (`parts`, one mapping a row) that verifies.
    A claim names its signer, so the pair stands for the signer's word. Parts `proven` knows
    under one of the signer's keys are not verified again; the others are checked together,
    on every core, each against its signer's key, then the keys it rotated from."""
    vouched: set[tuple[bytes, str]] = set()
    todo = []
    for who, claim, signature in {part for row_parts in parts for part in row_parts.values()}:
        keys = key_of(who)
        if proven.knows(keys, claim, signature):
            vouched.add((claim, signature))
        elif keys:
            todo.append((keys, claim, signature))
    first = verify_many([(keys[0], claim, signature) for keys, claim, signature in todo])
    for ok, (keys, claim, signature) in zip(first, todo):
        key = keys[0] if ok else next((k for k in keys[1:] if verify(k, claim, signature)), None)
        if key is not None:
            vouched.add((claim, signature))
            proven.add(key, claim, signature)
    return vouched


def unresolved(case: Case, threshold: int) -> Case:
    """A case without its verdict: where it stood before one."""
    return case.replace(resolution=None, resolved_at=None, verdict_signature=None,
                        status=escalate(CaseStatus.PENDING, case.dispute_count, threshold))


def authorised_only(case: Case, reviewer_keys: set[str], agents: set[str], threshold: int,
                    checked: Checked) -> Case:
    """The case as it stands without a verdict no roster reviewer signed, and without a dispute
    link no roster agent made (each reported in `checked`)."""
    if case.dispute and case.dispute_by not in agents:
        checked.refuse(UNAUTHORISED_LINK, case.id)
        case = unlinked(case)
    if not case.resolution or verdict_key(case) in reviewer_keys:
        return case
    checked.refuse(UNAUTHORISED_VERDICT, case.id)
    return unresolved(case, threshold)
