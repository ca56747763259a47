"""Events: what an agent tells its peers it did, as metadata only. Pure: no I/O.

A change that emits an event writes it to the local outbox in the same
transaction (store/tables.py, Outbox); the sync package signs, publishes,
receives and decides. The rules here are applied twice, by the same code:
when an event is built (a bad one raises EventRefused, nothing is written)
and when one is received (a bad one is dropped and counted).

Metadata only: each type has a schema (required and optional fields, their
kinds); no field may be named like content, vectors or embeddings at any
depth, no list may hold more than a few numbers, and the signed envelope is
at most 4 KB.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..errors import BadInput
from ..runtime import fast
from .case import Case
from .enums import EventType as E
from .memory import SUMMARY_CHARS, Memory, iso, shown_amplitude, utcnow, uuid7s
from .words import topic

MAX_EVENT_BYTES = 4096
MAX_TEXT = 200        # any string field but the summary
MAX_NUMBERS = 8       # a longer list of numbers looks like a vector
FORBIDDEN_FIELDS = frozenset({"content", "text", "body", "vector", "vectors", "embedding", "embeddings"})
ENVELOPE_FIELDS = ("event_id", "entity_id", "event_type", "ts", "agent", "payload")
COLLECTIVE_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
DEFAULT_COLLECTIVE = "default"

_NUM, _INT, _STR, _LIST, _MAP = (int, float), (int,), (str,), (list,), (dict,)


@dataclass(frozen=True)
class Schema:
    required: Mapping[str, tuple]
    optional: Mapping[str, tuple] = field(default_factory=dict)

    @functools.cached_property
    def kinds(self) -> dict[str, tuple]:
        """Every field's kinds, required and optional."""
        return {**self.required, **self.optional}


_MEMORY = {"origin": _STR, "category": _STR, "amplitude": _NUM, "tags": _LIST}
_CASE = {"agent_a": _STR, "agent_b": _STR, "dispute_count": _INT}
_RUN = {"run": _STR, "branch": _STR, "mode": _STR, "jobs": _INT}

# One schema per type (DESIGN, Events).
SCHEMAS: dict[E, Schema] = {
    E.MEMORY_STORED: Schema(_MEMORY, {"topic": _LIST, "summary": _STR, "stance": _STR}),
    E.MEMORY_BOOSTED: Schema(_MEMORY, {"topic": _LIST, "summary": _STR}),
    E.MEMORY_PRUNED: Schema({"origin": _STR, "reason": _STR}, {"category": _STR}),
    E.MEMORY_DISPUTED: Schema({"case_id": _STR, "peer": _STR, "similarity": _NUM}),
    E.DREAM_STARTED: Schema({**_RUN, "selected": _INT}, {"started_at": _STR}),
    E.DREAM_COMPLETED: Schema({**_RUN, "status": _STR, "counts": _MAP, "stability_before": _NUM,
                               "stability_after": _NUM}, {"seconds": _NUM}),
    E.DREAM_HALLUCINATION: Schema({"origin": _STR, "category": _STR, "amplitude": _NUM, "parent_count": _INT,
                                   "run": _STR, "tags": _LIST}, {"topic": _LIST, "summary": _STR}),
    E.MERGE_CONFLICT: Schema({**_CASE, "memory_id_a": _STR, "memory_id_b": _STR, "similarity": _NUM,
                              "phase_diff": _NUM}),
    E.MERGE_PROPOSED: Schema({"peer": _STR, "head": _STR, "counts": _MAP}),
    E.SYNC_REQUESTED: Schema({"reason": _STR}),
    E.SYNC_PUSHED: Schema({"branch": _STR, "head": _STR, "remote": _STR}),
    E.QUARANTINE_ESCALATED: Schema(_CASE),
    E.QUARANTINE_RESOLVED: Schema({**_CASE, "keep": _STR, "by": _STR}),
    E.AGENT_STATUS: Schema({"memories": _INT, "outbox": _INT, "head": _STR}, {"model_version": _STR}),
}
EVENT_TYPES = tuple(E)  # each with its schema above (tests/unit/test_events.py)


class EventRefused(BadInput):
    """An event breaks the rules; `reason` is a short code (receivers count drops by it)."""

    def __init__(self, reason: str, problem: str):
        super().__init__("event", problem)
        self.reason = reason


@dataclass(frozen=True)
class Draft:
    """An event as a change describes it, before the outbox stamps id, time and sender."""

    event_type: str
    entity_id: str
    payload: dict

    def __post_init__(self):
        check_payload(self.event_type, self.payload)

    @classmethod
    def checked(cls, event_type: str, entity_id: str, payload: dict) -> "Draft":
        """A draft whose payload passed check_payload's rules already (memory_event's)."""
        draft = object.__new__(cls)
        object.__setattr__(draft, "__dict__", {"event_type": event_type, "entity_id": entity_id, "payload": payload})
        return draft


@dataclass(frozen=True)
class Sender:
    """Who emits, on which collective, and whether memory events carry the summary (the
    first sentence: for most memories, the statement itself) beside their topic: only where
    a person opted in ([events] summary = true)."""

    agent: str
    collective: str = DEFAULT_COLLECTIVE
    summary: bool = False

    def stamp(self, draft: Draft) -> dict:
        """The unsigned envelope for a draft, checked against the size limit."""
        return self.stamp_all([draft])[0][0]

    def stamp_all(self, drafts: Sequence[Draft]) -> list[tuple[dict, bytes]]:
        """Each draft's unsigned envelope with its canonical bytes (what its signature will
        cover), checked against the size limit; drafts written together (in one
        transaction) share their time."""
        ts, agent, stamped = iso(utcnow()), self.agent, []
        for draft, event_id in zip(drafts, uuid7s(len(drafts))):
            payload = draft.payload
            if not self.summary and "summary" in payload:
                payload = dict(payload)
                del payload["summary"]
            envelope = {"event_id": event_id, "entity_id": draft.entity_id, "event_type": draft.event_type,
                        "ts": ts, "agent": agent, "payload": payload}
            signed = _CANONICAL_JSON(envelope).encode("utf-8")  # canonical(): it has those fields only
            if len(signed) > MAX_EVENT_BYTES - SIGNATURE_ROOM:  # as long as encode(envelope) then
                _check_size(len(signed) + SIGNATURE_ROOM, draft.event_type)
            stamped.append((envelope, signed))
        return stamped

    def subject(self, event_type: str) -> str:
        return subject(self.collective, self.agent, event_type)


def validate_collective(name: str | None) -> str:
    if not name or not COLLECTIVE_RE.fullmatch(name):
        raise BadInput("collective", f"{name!r} is not a valid collective name (expected [a-z0-9][a-z0-9_-]{{0,63}})")
    return name


def subject_token(agent: str) -> str:
    """An agent id as one subject token: agent ids may hold dots, tokens may not."""
    return agent.replace(".", "~")


def subject(collective: str, agent: str, event_type: str) -> str:
    return f"cmem.{collective}.{subject_token(agent)}.{event_type}"


def subject_parts(subject_: str) -> dict:
    """The agent and event type a subject names ({} for one not of the form `subject` makes):
    what a dropped message claimed to be, though its envelope was not taken."""
    parts = subject_.split(".", 3)
    if len(parts) != 4 or parts[0] != "cmem":
        return {}
    return {"agent": parts[2].replace("~", "."), "event_type": parts[3]}


# json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False), one encoder for all
_CANONICAL_JSON = fast.json_encoding(json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False))
SIGNATURE_ROOM = 100  # what the signature adds to an envelope not yet signed


def canonical(envelope: Mapping[str, Any]) -> bytes:
    """The signed bytes: every envelope field but the signature, keys sorted, no spaces."""
    return _CANONICAL_JSON({k: envelope[k] for k in ENVELOPE_FIELDS}).encode("utf-8")


def encode(envelope: Mapping[str, Any]) -> bytes:
    return json.dumps(dict(envelope), separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def check_size(envelope: Mapping[str, Any], *, signature_room: int = SIGNATURE_ROOM) -> None:
    _check_size(len(encode(envelope)) + (0 if "signature" in envelope else signature_room),
                envelope.get("event_type"))


def _check_size(size: int, event_type: Any) -> None:
    if size > MAX_EVENT_BYTES:
        raise EventRefused("oversize", f"{event_type} event is {size} bytes (limit {MAX_EVENT_BYTES})")


def check_payload(event_type: str, payload: Any) -> None:
    """The payload's schema: known type, required fields present, no others, metadata only."""
    schema = SCHEMAS.get(event_type)
    if schema is None:
        raise EventRefused("unknown_type", f"unknown event type {event_type!r}")
    if not isinstance(payload, dict):
        raise EventRefused("malformed", f"{event_type} payload must be an object")
    _check_metadata_only(payload, event_type)
    if not all(name in payload for name in schema.required):
        missing = sorted(set(schema.required) - set(payload))
        raise EventRefused("missing_field", f"{event_type} payload lacks {', '.join(missing)}")
    kinds = schema.kinds
    for name, value in payload.items():
        kind = kinds.get(name)
        if kind is None:
            raise EventRefused("unknown_field", f"{event_type} payload has no field {name!r}")
        if (not isinstance(value, kind) or value is True or value is False  # a bool is no number here
                or (isinstance(value, _NESTED) and not _plain(value))):
            raise EventRefused("malformed", f"{event_type} field {name!r} has the wrong kind")
        if isinstance(value, str) and len(value) > (SUMMARY_CHARS if name == "summary" else MAX_TEXT):
            raise EventRefused("oversize", f"{event_type} field {name!r} is too long")


def _plain(value: Any) -> bool:
    """Lists hold text (tags); objects map text to whole numbers (counts)."""
    if isinstance(value, list):
        return all(isinstance(v, str) and len(v) <= MAX_TEXT for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in value.items())
    return True


_NESTED = (dict, list)


def _check_metadata_only(value: Any, event_type: str) -> None:
    """No key named like content at any depth, no list of more than a few numbers. (Only
    objects and lists hold anything to check: other values are not gone into.)"""
    if isinstance(value, dict):
        for key, item in value.items():
            if str(key).lower() in FORBIDDEN_FIELDS:
                raise EventRefused("content", f"{event_type} payload carries {key!r}: events are metadata only")
            if isinstance(item, _NESTED):
                _check_metadata_only(item, event_type)
    elif isinstance(value, list):
        if len(value) > MAX_NUMBERS and sum(isinstance(v, (int, float)) and not isinstance(v, bool)
                                            for v in value) > MAX_NUMBERS:
            raise EventRefused("content", f"{event_type} payload carries a list of numbers (a vector?)")
        for item in value:
            if isinstance(item, _NESTED):
                _check_metadata_only(item, event_type)


def check_envelope(envelope: Any) -> dict:
    """A received envelope, checked by the same rules as a built one (signature aside)."""
    if not isinstance(envelope, dict):
        raise EventRefused("malformed", "an event must be a JSON object")
    missing = [k for k in (*ENVELOPE_FIELDS, "signature") if k not in envelope]
    if missing:
        raise EventRefused("missing_field", f"envelope lacks {', '.join(missing)}")
    extra = sorted(set(envelope) - {*ENVELOPE_FIELDS, "signature"})
    if extra:
        raise EventRefused("unknown_field", f"envelope has unknown field(s) {', '.join(extra)}")
    if not all(isinstance(envelope[k], str) for k in (*ENVELOPE_FIELDS[:5], "signature")):
        raise EventRefused("malformed", "envelope fields must be text")
    check_payload(envelope["event_type"], envelope["payload"])
    check_size(envelope)
    return envelope


# --- what each change emits ---------------------------------------------------------

def memory_event(event_type: str, memory: Memory) -> Draft:
    payload = {"origin": memory.origin_agent, "category": str(memory.category),
               "amplitude": shown_amplitude(memory.amplitude, 4), "tags": list(memory.tags),
               "topic": topic(memory.content, memory.tags), "summary": memory.summary}
    if event_type == E.MEMORY_STORED and memory.stance:
        payload["stance"] = str(memory.stance)
    if event_type in _MEMORY_EVENTS and _memory_payload_fits(payload):
        return Draft.checked(event_type, memory.id, payload)
    return Draft(event_type, memory.id, payload)  # check_payload says what is wrong, if anything


_MEMORY_EVENTS = frozenset({E.MEMORY_STORED, E.MEMORY_BOOSTED})


def _memory_payload_fits(payload: dict) -> bool:
    """Whether check_payload passes a payload memory_event made, checking only what varies
    from memory to memory: the texts it copies. Its fields, a float amplitude, lists and a
    topic of short words hold by how it is made (tests/unit/test_events.py holds the two to
    the same answers). A batch store makes thousands, and check_payload was half their cost."""
    origin, summary, tags = payload["origin"], payload["summary"], payload["tags"]
    return (type(origin) is str and len(origin) <= MAX_TEXT and len(payload["category"]) <= MAX_TEXT
            and type(summary) is str and len(summary) <= SUMMARY_CHARS and len(payload.get("stance", "")) <= MAX_TEXT
            and (not tags or all(type(tag) is str and len(tag) <= MAX_TEXT for tag in tags)))


def stored(new: Iterable[Memory], reinforced: Iterable[Memory]) -> list[Draft]:
    return [memory_event(E.MEMORY_STORED, m) for m in new] + [memory_event(E.MEMORY_BOOSTED, m) for m in reinforced]


def pruned(memory: Memory, reason: str) -> list[Draft]:
    return [Draft(E.MEMORY_PRUNED, memory.id, {"origin": memory.origin_agent, "reason": reason,
                                                "category": str(memory.category)})]


def _case_fields(case: Case) -> dict:
    return {"agent_a": case.agent_a, "agent_b": case.agent_b, "dispute_count": case.dispute_count}


def merged(peer: str, head: str, counts: Mapping[str, int], cases: Iterable[Case],
           before: Mapping[str, Case], *, receiver: str) -> list[Draft]:
    """A pull's events: its plan, and for each case it opened or raised, the conflict, the
    receiver's disputed memory, and the escalation when the case crossed the threshold."""
    drafts = [Draft(E.MERGE_PROPOSED, peer, {"peer": peer, "head": head,
                                             "counts": {k: int(v) for k, v in counts.items()}})]
    for case in cases:
        old = before.get(case.id)
        if old is not None and old.dispute_count >= case.dispute_count:
            continue
        drafts.append(Draft(E.MERGE_CONFLICT, case.id, {
            **_case_fields(case), "memory_id_a": case.memory_id_a, "memory_id_b": case.memory_id_b,
            "similarity": round(case.similarity, 4), "phase_diff": round(case.phase_diff, 4)}))
        sides = {"a": (case.agent_a, case.memory_id_a), "b": (case.agent_b, case.memory_id_b)}
        for side, other in (("a", "b"), ("b", "a")):
            if sides[side][0] == receiver:
                drafts.append(Draft(E.MEMORY_DISPUTED, sides[side][1], {
                    "case_id": case.id, "peer": sides[other][0], "similarity": round(case.similarity, 4)}))
        if case.status == "escalated" and (old is None or old.status != "escalated"):
            drafts.append(Draft(E.QUARANTINE_ESCALATED, case.id, _case_fields(case)))
    return drafts


def dreamed(run: Mapping[str, Any], synthesised: Iterable[Memory], *, status: str,
            started_at: str | None = None, seconds: float | None = None) -> list[Draft]:
    """A dream run's events, written with its merge into working: started, one per synthesis,
    completed. `run` is the run's report (dream/report.py): identity, mode, counts, stability."""
    ids = {"run": run["run"], "branch": run["branch"], "mode": run["mode"], "jobs": int(run["jobs"])}
    started = {**ids, "selected": int(run["counts"]["selected"])}
    if started_at:
        started["started_at"] = started_at
    completed = {**ids, "status": status, "counts": {k: int(v) for k, v in run["counts"].items()},
                 "stability_before": round(float(run["stability"]["before"]), 6),
                 "stability_after": round(float(run["stability"]["after"]), 6)}
    if seconds is not None:
        completed["seconds"] = round(max(float(seconds), 0.0), 3)
    made = [Draft(E.DREAM_HALLUCINATION, m.id, {
        "origin": m.origin_agent, "category": str(m.category), "amplitude": shown_amplitude(m.amplitude, 4),
        "parent_count": len(m.parents), "run": run["run"], "tags": list(m.tags),
        "topic": topic(m.content, m.tags), "summary": m.summary})
        for m in synthesised]
    return [Draft(E.DREAM_STARTED, run["branch"], started), *made, Draft(E.DREAM_COMPLETED, run["branch"], completed)]


def pushed(branch: str, head: str, remote: str) -> list[Draft]:
    return [Draft(E.SYNC_PUSHED, branch, {"branch": branch, "head": head, "remote": remote})]


def resolved(case: Case) -> list[Draft]:
    decision = case.decision()
    return [Draft(E.QUARANTINE_RESOLVED, case.id, {**_case_fields(case), "keep": str(decision["keep"]),
                                                    "by": str(decision.get("by", "reviewer"))[:MAX_TEXT]})]


def status(agent: str, *, memories: int, outbox: int, head: str, model_version: str | None) -> list[Draft]:
    payload = {"memories": int(memories), "outbox": int(outbox), "head": head}
    if model_version:
        payload["model_version"] = model_version
    return [Draft(E.AGENT_STATUS, agent, payload)]
