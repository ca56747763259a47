"""The quarantine's shapes: a dispute, both its sides, and a person's verdict on it."""

from __future__ import annotations

from typing import Annotated

from typing_extensions import TypedDict

# why a dispute is closed (quarantine/closing.py)
RETRACTED = "retracted"  # a side's origin retracted it
LET_GO = "let_go"        # a side was signed by no key the roster names for its origin, and let go


class DisputeSide(TypedDict):
    """One side of a dispute: its memory (as held here) and the copies that stand with it."""

    memory: str
    content: str
    summary: str
    origin_agent: str
    trust: float
    amplitude: float
    disputed: bool
    refuted_by: str | None
    valid_until: str | None
    copies: Annotated[list, "memory, origin_agent"]
    parents: list


class Verdict(TypedDict):
    keep: Annotated[str, "a, b, both or merged"]
    note: str
    by: str
    at: str
    text: Annotated[str | None, "merged: the corrected statement"]
    memory: Annotated[str | None, "merged: the memory made of it"]


class Reopening(TypedDict):
    by: str
    at: str
    note: str
    opens: Annotated[bool, "the reviewer opened the dispute with it (two claims no merge paired), withdrawing nothing"]


class DisputeReport(TypedDict):
    """A disagreement between two claims, whatever number of cases it gathered."""

    dispute: str
    status: Annotated[str, "pending, escalated, resolved, or closed (a side's origin retracted it, or it was let go: "
                           "nothing to decide)"]
    cases: list
    case_count: int
    agents: list
    opened_at: str
    similarity: float
    phase_diff: float
    reason: Annotated[str, "the judge's reason"]
    a: DisputeSide
    b: DisputeSide
    resolution: Annotated[Verdict | None, "null while open"]
    reopened: Annotated[Reopening | None, "null unless a reopening stands"]
    applied: Annotated[list, "its cases whose verdict took effect here"]
    awaiting: Annotated[str | None, "set while the verdict's reviewer is not honoured here"]
    closed: Annotated[dict | None, "reason (retracted, or let_go: signed by no key the roster names for its "
                                   "origin) and memories (those sides); null unless closed"]


class DecidedDispute(DisputeReport):
    """A dispute after a person's verdict (or reopening), recorded and shared."""

    commit: str
    resolved_cases: Annotated[list, "resolve: the cases it decided"]
    reopened_cases: Annotated[list, "reopen: the cases it reopened"]
    quarantine: Annotated[dict, "the cases shared: pushed, cases, ..."]




def closed_because(closed: dict) -> str:
    """Why a dispute is closed, in words: `closed` is its report's {"reason", "memories"}."""
    memories = ", ".join(closed["memories"])
    if closed["reason"] == RETRACTED:
        return f"its origin retracted {memories}"
    if closed["reason"] == LET_GO:
        return f"{memories}: signed by no key the roster names for its origin, and let go"
    return f"a side retracted or let go ({memories})"
