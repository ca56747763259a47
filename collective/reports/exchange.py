"""The exchange's shapes: pull, push and the agent's status."""

from __future__ import annotations

from typing import Annotated

# typing_extensions' TypedDict: pydantic (the MCP SDK's output schemas) reads nested ones only from it on 3.11
from typing_extensions import TypedDict

DRY = "null on a dry run"
PROMOTIONS = "the consensus exchanged: consensus_moved, taken, refused, main_refused, promoted, pushed"
PAIRS = "remote, local, relation, similarity, phase_difference, reason (the judge's: a is the local memory, b the remote)"
PEER_STATUSES = "merged, unchanged, refused, planned"  # model.enums.PeerStatus (imported by no help text: numpy)


class PeerPullReport(TypedDict):
    """One peer's part of a pull."""

    peer: str
    head: str
    status: Annotated[str, PEER_STATUSES]
    commit: str | None
    summary: Annotated[dict, "what its memories became: new, constructive, partial, destructive, ..."]
    refused: Annotated[dict, "reason -> count"]
    pairs: Annotated[list, PAIRS]
    key: Annotated[dict | None, "first_sighting, rotated, roster, refused, let_go: a key's fingerprint each"]
    history: Annotated[dict | None, "taken and offered, when refused as rewritten; with put_back_from (the commit "
                                    "read from) when the branch was only put back after a forgery"]
    let_go: Annotated[int, "its memories held here that a key the roster does not name signed (a squatter's "
                           "under its name), let go"]
    seconds: dict


class PullApplied(TypedDict):
    """What the pull changed here, every part of it: a pull that changed nothing has every
    count 0, every list empty and roster null (and says "nothing new")."""

    memories: Annotated[int, "the peers' memories taken: new, updated, retracted"]
    peers_merged: Annotated[int, "peers whose branch brought a change (a commit each)"]
    cases: Annotated[int, "shared case rows taken (new, counted again, linked, decided)"]
    opened: Annotated[list[str], "the cases among them new here"]
    verdicts: Annotated[list[str], "the disputes whose verdict took effect here"]
    reopened: Annotated[list[str], "the disputes a reopening set open again here (its verdict withdrawn)"]
    promotions: Annotated[int, "proposals, decisions and endorsements taken"]
    promoted: Annotated[int, "memories that landed on main"]
    consensus_moved: Annotated[bool, "main moved to the commons' main"]
    roster: Annotated[int | None, "the roster version taken; null when none"]
    keys: Annotated[int, "peers whose key was first seen, rotated, taken from the roster, or let go"]


class PullReport(TypedDict):
    """A pull: every peer that moved merged, the shared branches taken and checked."""

    remote: str
    dry_run: bool
    peers: list[PeerPullReport]
    cases_taken: Annotated[dict | None, DRY]
    refused: Annotated[dict, 'by source (a peer, "collective/quarantine", "main", "collective/roster"), then reason']
    promotions: Annotated[dict | None, PROMOTIONS + "; " + DRY]
    roster: Annotated[dict | None, "collective, version, taken, refused, ignored (peer: why its branch's roster was "
                                    "not followed), republished (when the commons' copy was put back); " + DRY]
    cases_grouped: Annotated[int | None, "cases that joined a dispute; " + DRY]
    quarantine: Annotated[dict | None, "the cases shared: pushed, cases, ...; " + DRY]
    dreams: Annotated[dict | None, "the peers' dream artifacts imported, by trust: remote, runs; " + DRY]
    applied: Annotated[PullApplied | None, DRY]


class BranchTampered(TypedDict):
    """The agent's own branch on the commons, found written by another hand: refused, and
    the agent's branch put back in its place."""

    reason: Annotated[str, "branch_tampered"]
    branch: str
    found: Annotated[str, "the commons' head, which is not the agent's head or an ancestor of it"]
    restored: Annotated[str, "the agent's head, pushed in its place"]


class PushReport(TypedDict):
    """A push of the working branch, and of the shared quarantine when it has news."""

    remote: str
    branch: str
    head: str
    quarantine: Annotated[dict, "the cases shared: pushed, cases, ..."]
    promotions: Annotated[dict, PROMOTIONS]
    tampered: Annotated[BranchTampered | None, "null when the commons held this agent's head or an ancestor"]


class StatusCounts(TypedDict):
    memories: int
    own: int
    retracted: int
    disputed: int
    absorbed: int
    peers: int
    open_cases: int
    awaiting_reviewer: Annotated[int, "verdicts kept, signed by no reviewer honoured here"]
    key_changes: Annotated[int, "peer key changes refused, not accepted since"]


class StatusReport(TypedDict):
    """The agent at a glance."""

    agent: str
    home: str
    engine: str
    database: str
    server: Annotated[str | None, "the Dolt sql-server; null on doltlite"]
    branch: str
    head: str
    schema_version: int
    counts: StatusCounts
    stability: float
    index: Annotated[dict, "built, head, count, current"]
    remotes: Annotated[dict, "name -> URL"]
    events: Annotated[dict, "outbox, last_publish"]
