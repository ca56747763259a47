"""The collective's shapes: proposals for main, peers and trust, a dream, a key rotation,
a sync window."""

from __future__ import annotations

from typing import Annotated

from typing_extensions import TypedDict

from .exchange import PROMOTIONS


class Proposal(TypedDict):
    """A memory proposed for main, the collective's consensus."""

    memory: str
    summary: str
    content: str
    origin_agent: str
    proposed_by: str
    proposed_at: str
    note: str | None
    endorsements: Annotated[list, "the agents that endorsed it"]
    status: Annotated[str, "pending, promoted or rejected"]
    decided_by: str | None
    decision: Annotated[dict | None, "approve, note, by, at: a reviewer's"]
    awaiting: Annotated[str | None, "set while the deciding reviewer is not honoured here"]
    commit: Annotated[str | None, "the commit on main, once promoted"]


class ProposalReport(Proposal):
    """A proposal or an endorsement, recorded and exchanged."""

    recorded: Annotated[str, "the commit that recorded it"]
    promotions: Annotated[dict, PROMOTIONS]


class PeerReport(TypedDict):
    """A peer this agent has met."""

    agent: str
    trust: Annotated[float, "0 to 1, here"]
    last_sync: str | None
    last_synced_commit: str | None
    key_fingerprint: str | None
    memories: Annotated[int, "of its, held here"]
    key_warning: Annotated[str | None, "a key change not accepted"]
    held: Annotated[str | None, "not_on_roster: the roster followed here does not name it, and nothing of it is "
                                "taken"]


class PeersReport(TypedDict):
    peers: list[PeerReport]


class TrustEvent(TypedDict):
    id: str
    agent_id: str
    delta: float
    score_after: float
    reason: str
    verifier: str
    created_at: str
    evidence: Annotated[dict, "the memories, case and dispute it rests on"]


class TrustLedger(TypedDict):
    """A peer's trust here and every change to it."""

    agent: str
    trust: float
    events: list[TrustEvent]


class DreamReport(TypedDict):
    """A dream cycle: what it consolidated, and where it was shared."""

    run: str
    branch: str
    base: str
    head: str
    mode: Annotated[str, "incremental or full"]
    status: Annotated[str, "merged, or review (kept on its branch)"]
    jobs: int
    counts: Annotated[dict, "selected, changed, pairs, strengthened, faded, clusters, ..."]
    clusters: Annotated[list, "id, size, order"]
    coherence: float
    stability: Annotated[dict, "before, after"]
    strengthened: Annotated[list, "id, amplitude"]
    disputed: list
    synthesised: Annotated[list, "id, summary, parents"]
    pruned: Annotated[list, "id, strength"]
    coaccess_folded: Annotated[dict, "memory -> the memories recalled with it"]
    shared: Annotated[dict, "pushed, and remote and branch or reason"]
    seconds: Annotated[dict, "by stage"]


class KeyRotation(TypedDict):
    """A new key for this agent, signed by the old one."""

    agent: str
    old_fingerprint: str
    new_fingerprint: str
    public_key: str
    commit: str


class KeyDecision(TypedDict):
    """A person's decision on a peer's key change that no signed rotation explains."""

    agent: str
    key_fingerprint: str
    decision: Annotated[str, "accepted or rejected"]
    commit: str


class SyncWork(TypedDict):
    kind: Annotated[str, "cases, burst, priority, pull, push, ..."]
    priority: int
    reason: str
    at: str
    result: Annotated[dict, "the work's own report, or error"]


class SyncWindowReport(TypedDict):
    """One window's work, done now."""

    open: Annotated[bool, "false outside a window: nothing done"]
    done: list[SyncWork]
