"""The states and kinds the data names. Each is a StrEnum: it compares equal to its
value, so rows written as plain text read back as members and JSON stays text."""

from __future__ import annotations

from enum import StrEnum


class Relation(StrEnum):
    """How two memories relate, as the merge and a dream's detect stage classify them.
    Reports list them in this order (agree, contradict, partly, unrelated)."""

    CONSTRUCTIVE = "constructive"
    DESTRUCTIVE = "destructive"
    PARTIAL = "partial"
    INDEPENDENT = "independent"


class CaseStatus(StrEnum):
    """A quarantine case moves forward, pending -> escalated -> resolved, until a reviewer
    reopens it (escalated again: it waits for a person)."""

    PENDING = "pending"
    ESCALATED = "escalated"
    RESOLVED = "resolved"

    @property
    def rank(self) -> int:
        return list(CaseStatus).index(self)


class Keep(StrEnum):
    """A person's verdict on a case. REOPEN undoes the verdict before it and decides
    nothing: the case waits for a reviewer again."""

    A = "a"
    B = "b"
    BOTH = "both"
    MERGED = "merged"
    REOPEN = "reopen"


# shown beside a verdict or decision signed by no reviewer this agent honours: it has not taken effect here
AWAITING_REVIEWER = "awaiting an authorised reviewer"
CLOSED = "closed"  # a dispute with nothing left to decide: no CaseStatus, derived (quarantine/closing.py)


class KeyDecision(StrEnum):
    """Where a peer's refused key change stands (`key_changes`)."""

    PENDING = "pending"    # refused, waiting for a person
    REJECTED = "rejected"  # refused for good
    ACCEPTED = "accepted"  # a peer first met with a disputed key: taken at its next pull


class PeerStatus(StrEnum):
    """What a pull did with one peer."""

    MERGED = "merged"
    UNCHANGED = "unchanged"
    REFUSED = "refused"
    PLANNED = "planned"


class Category(StrEnum):
    KNOWLEDGE = "knowledge"
    EXPERIENCE = "experience"
    SKILL = "skill"
    SOCIAL = "social"
    EMOTION = "emotion"


class LinkType(StrEnum):
    CONSENSUS = "consensus"
    PARTIAL_AGREEMENT = "partial_agreement"
    DISPUTES = "disputes"
    HALLUCINATED_FROM = "hallucinated_from"
    WIRE = "wire"
    CROSS_CLUSTER = "cross_cluster"


class EventType(StrEnum):
    """What an event says its agent did (DESIGN, Events): each has one schema
    (model/events.py) and one rule in the listener's policy (sync/policy.py)."""

    MEMORY_STORED = "memory.stored"
    MEMORY_BOOSTED = "memory.boosted"
    MEMORY_PRUNED = "memory.pruned"
    MEMORY_DISPUTED = "memory.disputed"
    DREAM_STARTED = "dream.started"
    DREAM_COMPLETED = "dream.completed"
    DREAM_HALLUCINATION = "dream.hallucination"
    MERGE_CONFLICT = "merge.conflict"
    MERGE_PROPOSED = "merge.proposed"
    SYNC_REQUESTED = "sync.requested"
    SYNC_PUSHED = "sync.pushed"
    QUARANTINE_ESCALATED = "quarantine.escalated"
    QUARANTINE_RESOLVED = "quarantine.resolved"
    AGENT_STATUS = "agent.status"
