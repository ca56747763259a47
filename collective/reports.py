"""What the front door's verbs return, as typed shapes (TypedDicts: a JSON object is the
point). The Agent returns them, `cmem ... --json` prints them and the MCP tools return
them. The shapes the CLI's help, the README and the MCP descriptions document are
written from these (`documented`), the MCP tools' output schemas too (the SDK reads the
tools' annotations), and `mismatches` says where a value strays from its shape, so a
test fails when they disagree. `cmem --help` imports this: it imports nothing heavy.

A field's note (`Annotated[type, "note"]`) is printed beside its name in the docs."""

from __future__ import annotations

import textwrap
from typing import Annotated, Any, Callable, get_args, get_origin

# typing_extensions' TypedDict: pydantic (the MCP SDK's output schemas) reads nested ones only from it on 3.11
from typing_extensions import TypedDict, get_type_hints, is_typeddict

DRY = "null on a dry run"
PEER_STATUSES = "merged, unchanged, refused, planned"  # model.enums.PeerStatus (imported by no help text: numpy)


class PeerPullReport(TypedDict):
    """One peer's part of a pull."""

    peer: str
    head: str
    status: Annotated[str, PEER_STATUSES]
    commit: str | None
    summary: Annotated[dict, "what its memories became: new, constructive, partial, destructive, ..."]
    refused: Annotated[dict, "reason -> count"]
    pairs: list
    key: dict | None
    history: Annotated[dict | None, "taken and offered, when refused as rewritten"]
    seconds: dict


class PullReport(TypedDict):
    """A pull: every peer that moved merged, the shared branches taken and checked."""

    remote: str
    dry_run: bool
    peers: list[PeerPullReport]
    cases_taken: Annotated[dict | None, DRY]
    refused: Annotated[dict, 'by source (a peer, "collective/quarantine", "main", "collective/roster"), then reason']
    promotions: Annotated[dict | None, "consensus_moved, taken, refused, main_refused, promoted, pushed; " + DRY]
    roster: Annotated[dict | None, "collective, version, taken, refused; " + DRY]
    cases_grouped: Annotated[int | None, "cases that joined a dispute; " + DRY]
    quarantine: Annotated[dict | None, "the cases shared: pushed, cases, ...; " + DRY]
    dreams: Annotated[dict | None, "the peers' dream artifacts imported, by trust: remote, runs; " + DRY]


class PushReport(TypedDict):
    """A push of the working branch, and of the shared quarantine when it has news."""

    remote: str
    branch: str
    head: str
    quarantine: Annotated[dict, "the cases shared: pushed, cases, ..."]
    promotions: Annotated[dict, "the consensus exchanged: consensus_moved, taken, refused, main_refused, promoted, "
                                "pushed"]


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


class DisputeReport(TypedDict):
    """A disagreement between two claims, whatever number of cases it gathered."""

    dispute: str
    status: Annotated[str, "pending, escalated or resolved"]
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


class DecidedDispute(DisputeReport):
    """A dispute after a person's verdict (or reopening), recorded and shared."""

    commit: str
    resolved_cases: Annotated[list, "resolve: the cases it decided"]
    reopened_cases: Annotated[list, "reopen: the cases it reopened"]
    quarantine: Annotated[dict, "the cases shared: pushed, cases, ..."]


def _unwrapped(kind: Any) -> tuple[Any, str]:
    """The type under Annotated and Optional, with its note ("" when none)."""
    note = ""
    if get_origin(kind) is Annotated:
        kind, note = get_args(kind)[0], get_args(kind)[1]
    inner = [a for a in get_args(kind) if a is not type(None)]
    if inner and type(None) in get_args(kind) and len(inner) == 1:
        kind = inner[0]
    return kind, note


def _fields(shape: type) -> dict[str, Any]:
    return get_type_hints(shape, include_extras=True)


def shape_text(shape: type) -> str:
    """The shape as the docs write it: {"a", "b": {...}, "c": [{...}] (note)}."""
    parts = []
    for name, kind in _fields(shape).items():
        kind, note = _unwrapped(kind)
        text = f'"{name}"'
        if is_typeddict(kind):
            text += ": " + shape_text(kind)
        elif get_origin(kind) is list and get_args(kind) and is_typeddict(get_args(kind)[0]):
            text += ": [" + shape_text(get_args(kind)[0]) + "]"
        parts.append(text + (f" ({note})" if note else ""))
    return "{" + ", ".join(parts) + "}"


def documented(shape: type, *, lead: str = "JSON:", for_click: bool = True, many: bool = False) -> Callable:
    """A decorator: the function's docstring ends with the shape it returns, written from
    `shape` (a list of them, `many`; for click, after a \\b line: printed as written)."""
    def decorate(func: Callable) -> Callable:
        doc = func.__doc__ or ""
        body = [line for line in doc.splitlines()[1:] if line.strip()]
        indent = " " * min((len(line) - len(line.lstrip()) for line in body), default=4)
        written = f"[{shape_text(shape)}]" if many else shape_text(shape)
        lines = textwrap.wrap(f"{lead} {written}", width=88, subsequent_indent="  ",
                              break_on_hyphens=False)
        keep = f"{indent}\b\n" if for_click else ""  # \b: click keeps the paragraph as written
        func.__doc__ = doc.rstrip() + f"\n\n{keep}" + "\n".join(indent + line for line in lines) + f"\n{indent}"
        return func
    return decorate


def mismatches(value: Any, shape: type, where: str = "") -> list[str]:
    """Where `value` strays from `shape`: keys missing or extra, in it and in the objects it
    holds that have shapes of their own ([] when it keeps to it)."""
    if not isinstance(value, dict):
        return [f"{where or 'the value'} is {type(value).__name__}, not an object"]
    fields = _fields(shape)
    found = [f"{where}.{k} missing" for k in fields if k not in value]
    found += [f"{where}.{k} not in {shape.__name__}" for k in value if k not in fields]
    for name, kind in fields.items():
        kind, _ = _unwrapped(kind)
        held = value.get(name)
        if held is None:
            continue
        if is_typeddict(kind):
            found += mismatches(held, kind, f"{where}.{name}")
        elif get_origin(kind) is list and get_args(kind) and is_typeddict(get_args(kind)[0]):
            for i, item in enumerate(held):
                found += mismatches(item, get_args(kind)[0], f"{where}.{name}[{i}]")
    return found
