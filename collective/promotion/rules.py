"""What a promotion to main is made of, and when one is due: the signed proposal, the
signed endorsements, a person's signed decision, the join of two agents' views, and
the rule (a person approves, or at least two agents other than the origin endorse).

No I/O: the service reads and writes the rows; keys are passed in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from ..identity import Identity, canonical, endorsement_valid, verify
from ..model.memory import Memory
from ..model.promotion import Endorsement, Promotion

ENDORSEMENTS_NEEDED = 2

PENDING, PROMOTED, REJECTED = "pending", "promoted", "rejected"
STATUSES = (PENDING, PROMOTED, REJECTED)

# why a shared row, or part of it, was ignored
FORGED_PROPOSAL = "forged_proposal"
FORGED_DECISION = "forged_decision"
FORGED_ENDORSEMENT = "forged_endorsement"
SELF_ENDORSEMENT = "self_endorsement"
UNAUTHORISED_DECISION = "unauthorised_decision"  # by a key the collective's roster names as no reviewer

COMMIT_PREFIX = "promote "


# The claim and the document are the bytes stored signatures cover: keep them as they are.
def proposal_claim(row: Promotion) -> bytes:
    return canonical({"kind": "promotion.proposal", "memory_id": row.memory_id, "origin_agent": row.origin_agent,
                      "proposed_by": row.proposed_by, "proposed_at": row.proposed_at, "note": row.note or ""})


def proposal(identity: Identity, *, memory_id: str, origin_agent: str, proposed_by: str, at: str,
             note: str | None) -> Promotion:
    """A proposal, signed by the agent proposing it."""
    unsigned = Promotion(memory_id=memory_id, origin_agent=origin_agent, proposed_by=proposed_by, proposed_at=at,
                         note=note, proposal_signature="")
    return unsigned.replace(proposal_signature=identity.sign(proposal_claim(unsigned)))


def decision_document(row: Promotion, *, approve: bool, note: str, by: str, reviewer_key: str, agent: str,
                      at: str) -> str:
    """The decision column: approve or reject, and the proposal it decides, as the reviewer signs it."""
    return canonical({"kind": "promotion.decision", "memory_id": row.memory_id,
                      "origin_agent": row.origin_agent, "approve": bool(approve), "note": note, "by": by,
                      "reviewer_key": reviewer_key, "recorded_by": agent, "at": at}).decode("utf-8")


def decided(row: Promotion, reviewer: Identity, **document) -> Promotion:
    """The proposal with a person's decision, signed with their reviewer key."""
    text = decision_document(row, reviewer_key=reviewer.public_key, **document)
    return row.replace(decision=text, decision_signature=reviewer.sign(text.encode("utf-8")),
                       decided_at=document["at"])


def signed_by_origin(row: Mapping, key_of: Callable[[str], Sequence[str]]) -> bool:
    """Whether a memory row carries its origin's signature over its claim."""
    claim = Memory.from_row(row).claim()
    return any(verify(key, claim, row["signature"] or "") for key in key_of(row["origin_agent"]))


def decision_of(row: Promotion) -> dict | None:
    """The decision a row carries, parsed, when its signature verifies and it decides this proposal."""
    text, signature = row.decision, row.decision_signature
    if not text or not signature:
        return None
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if not isinstance(document, dict) or not verify(str(document.get("reviewer_key")), text.encode("utf-8"),
                                                    signature):
        return None
    if document.get("memory_id") != row.memory_id or document.get("origin_agent") != row.origin_agent \
            or document.get("at") != row.decided_at:
        return None  # a genuine decision, but about another proposal
    return document


@dataclass
class Checked:
    """Shared rows after their signatures were checked."""

    promotions: list[Promotion] = field(default_factory=list)
    endorsements: list[Endorsement] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)  # reason -> memory ids (agent for endorsements)

    def refuse(self, reason: str, what: str) -> None:
        self.refused.setdefault(reason, []).append(what)


def check(promotions: Sequence[Promotion], endorsements: Sequence[Endorsement],
          key_of: Callable[[str], Sequence[str]], *, reviewer_keys: set[str] | None = None) -> Checked:
    """Keep proposals whose proposer signed them (a bad decision is dropped, the proposal
    kept, as is a decision by no reviewer of `reviewer_keys`, the roster's, when given), and
    endorsements signed by their endorser for a kept proposal, not by its origin."""
    checked = Checked()
    origins = {}
    for row in promotions:
        if not any(verify(k, proposal_claim(row), row.proposal_signature or "") for k in key_of(row.proposed_by)):
            checked.refuse(FORGED_PROPOSAL, row.memory_id)
            continue
        if row.decision and decision_of(row) is None:
            checked.refuse(FORGED_DECISION, row.memory_id)
            row = row.undecided()
        elif row.decision and reviewer_keys is not None and decision_of(row).get("reviewer_key") not in reviewer_keys:
            checked.refuse(UNAUTHORISED_DECISION, row.memory_id)
            row = row.undecided()
        origins[row.memory_id] = row.origin_agent
        checked.promotions.append(row)
    for row in endorsements:
        what = f"{row.memory_id} by {row.agent_id}"
        if row.memory_id not in origins:
            continue  # its proposal is not here (yet): taken with it
        if row.agent_id == origins[row.memory_id]:
            checked.refuse(SELF_ENDORSEMENT, what)
        elif not any(endorsement_valid(row, k) for k in key_of(row.agent_id)):
            checked.refuse(FORGED_ENDORSEMENT, what)
        else:
            checked.endorsements.append(row)
    return checked


def join(ours: Mapping[str, Promotion], theirs: Sequence[Promotion]) -> list[Promotion]:
    """The proposals of `theirs` that change ours: new ones, and decisions we lack (the
    first decision made stands)."""
    changed = []
    for row in theirs:
        held = ours.get(row.memory_id)
        if held is None:
            changed.append(row)
        elif row.decision and (not held.decision or (row.decided_at, row.decision)
                               < (held.decided_at, held.decision)):
            changed.append(held.replace(decision=row.decision, decision_signature=row.decision_signature,
                                        decided_at=row.decided_at))
    return changed


@dataclass(frozen=True)
class Standing:
    """Where one proposal stands as this agent sees it."""

    status: str
    endorsers: tuple[str, ...]
    decision: dict | None      # the verified decision, honoured here or not
    honoured: bool             # whether its reviewer is authorised here
    due: bool                  # to be promoted now
    reason: str                # for the commit message: "approved by ana" or "endorsed by a, b"


def standing(row: Promotion, endorsements: Sequence[Endorsement], *, authorised: set[str],
             on_main: bool, endorsers_allowed: set[str] | None = None,
             needed: int = ENDORSEMENTS_NEEDED) -> Standing:
    """The status of a proposal from its (checked) decision and endorsements: only those of
    `endorsers_allowed` count (the roster's endorsers; None: any agent but the origin)."""
    endorsers = tuple(sorted({e.agent_id for e in endorsements if e.agent_id != row.origin_agent
                              and (endorsers_allowed is None or e.agent_id in endorsers_allowed)}))
    decision = decision_of(row)
    honoured = decision is not None and decision.get("reviewer_key") in authorised
    if on_main:
        status = PROMOTED
    elif honoured and not decision["approve"]:
        status = REJECTED
    else:
        status = PENDING
    if honoured and decision["approve"]:
        reason = f"approved by {decision['by']}"
    elif len(endorsers) >= needed:
        reason = f"endorsed by {', '.join(endorsers)}"
    else:
        reason = ""
    return Standing(status, endorsers, decision, honoured, status == PENDING and bool(reason), reason)


def commit_message(memory_id: str, reason: str) -> str:
    return f"{COMMIT_PREFIX}{memory_id}: {reason}"


def promoted_id(message: str) -> str | None:
    """The memory a commit on main promoted, from its message."""
    if not message.startswith(COMMIT_PREFIX) or ":" not in message:
        return None
    return message[len(COMMIT_PREFIX):].split(":", 1)[0]
