"""Results sized for a model's context: what a tool answers unless asked for detail.

A model pays for every token of a result, and a pull's pairs or thirty disputes side by
side fill its context. So a pull answers with counts and the ids that matter (the
disputes it opened, what reached main), a list with a page of compact entries and the
total, and detail=true gives what `--json` prints. A compact shape keeps the full one's
keys and types, marking the rest NotRequired, so one output schema fits both answers.
"""

from __future__ import annotations

from typing import Any, Callable, get_args, get_origin

from typing_extensions import NotRequired, TypedDict, get_type_hints, is_typeddict

from ..reports import DisputeReport, DisputeSide, PeerPullReport, PullReport, compact, plain


def _briefed(shape: type, name: str, keep: tuple[str, ...], **kinds: Any) -> type:
    """`shape` with only `keep` required (and `kinds` in place of its own types there)."""
    fields = get_type_hints(shape, include_extras=True) | kinds
    briefed = TypedDict(name, {k: (kind if k in keep else NotRequired[kind]) for k, kind in fields.items()})
    briefed.__doc__ = shape.__doc__
    return briefed


PeerPullBrief = _briefed(PeerPullReport, "PeerPullBrief", ("peer", "status", "summary"))
PullBrief = _briefed(PullReport, "PullBrief", ("remote", "dry_run", "peers", "refused", "cases_grouped"),
                     peers=list[PeerPullBrief])


def pull_brief(report: Any) -> dict:
    """A pull as counts: each peer's status and what its memories became, with the ids of the
    disputes it opened ("cases": memory_dispute takes one); "promoted" when main moved, and
    "applied", what it changed here, when it changed anything."""
    full = plain(report)
    brief = compact(full, PullBrief)
    for peer in brief["peers"]:
        peer["summary"] = {k: v for k, v in peer["summary"].items()
                           if (isinstance(v, int) and v) or (k == "cases" and v)}
    if (full.get("promotions") or {}).get("promoted"):
        brief["promotions"] = {"promoted": full["promotions"]["promoted"]}
    applied = full.get("applied") or {}
    if any(applied.values()):  # verdicts, reopenings, cases, a roster: what arrived beside memories
        brief["applied"] = applied
    return brief


SIDE = ("memory", "content", "origin_agent", "trust")
DisputeSideBrief = _briefed(DisputeSide, "DisputeSideBrief", SIDE)
DisputeBrief = _briefed(DisputeReport, "DisputeBrief", ("dispute", "status", "case_count", "opened_at", "reason",
                                                        "a", "b", "resolution"), a=DisputeSideBrief, b=DisputeSideBrief)


class DisputesPage(TypedDict):
    """A page of disputes, escalated first, then oldest first."""

    total: int
    offset: int
    disputes: list[DisputeBrief]


def dispute_brief(dispute: dict) -> dict:
    """A dispute as a model weighs it: both claims, whose, and the judge's reason."""
    return compact(plain(dispute), DisputeBrief)


def page(items: list, key: str, limit: int, offset: int, shown: Callable[[Any], Any] = lambda item: item) -> dict:
    """items[offset:offset + limit] under `key`, with the total: the next page starts at
    offset + limit while that is below total."""
    return {"total": len(items), "offset": offset, key: [shown(item) for item in items[offset:offset + limit]]}


def returns(shape: type, *, key: str | None = None) -> Callable:
    """A decorator: the docstring ends with the keys of the compact answer (`shape`, paged
    under `key` when a list), without notes or the fields detail adds: the output schema
    names those."""
    keys = keys_text(shape)
    written = '{"total", "offset", "%s": [%s]}' % (key, keys) if key else keys
    return lambda func: _ending(func, f"Returns {written}")


def _ending(func: Callable, text: str) -> Callable:
    doc = (func.__doc__ or "").rstrip()
    indent = " " * min((len(line) - len(line.lstrip()) for line in doc.splitlines()[1:] if line.strip()), default=8)
    func.__doc__ = f"{doc}\n\n{indent}{text}\n{indent}"
    return func


def keys_text(shape: type) -> str:
    """{"a", "b": {...}, "c": [{...}]}: the required keys, nested where a shape has its own."""
    optional = getattr(shape, "__optional_keys__", frozenset())
    parts = []
    for name, kind in get_type_hints(shape).items():
        if name in optional:
            continue
        inner = [a for a in get_args(kind) if a is not type(None)]
        kind = inner[0] if get_origin(kind) is not list and len(inner) == 1 else kind
        if is_typeddict(kind):
            parts.append(f'"{name}": {keys_text(kind)}')
        elif get_origin(kind) is list and get_args(kind) and is_typeddict(get_args(kind)[0]):
            parts.append(f'"{name}": [{keys_text(get_args(kind)[0])}]')
        else:
            parts.append(f'"{name}"')
    return "{" + ", ".join(parts) + "}"
