"""Receiving one event: check it (size, JSON, envelope, schema, subject, signature
against the key registry), take it in once (the inbox is keyed by event_id), decide
what to do (collective.sync.policy) and record the decision with its reason; when the decision
is "now", pull the sender.

A bad event is dropped with one log line and counted (in memory and in local_state,
`events.dropped.<reason>`); the receiver keeps going.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from collective.core import trust as trust_rules
from collective.errors import CollectiveError
from collective.model import iso, utcnow
from collective.model.events import MAX_EVENT_BYTES, EventRefused, check_envelope, subject, subject_parts

from .. import policy
from .signing import verify

if TYPE_CHECKING:
    from collective.agent_sync import SyncPort

log = logging.getLogger("cmem.events")

DROPPED = "events.dropped."


class Dropped(Exception):
    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


@dataclass
class Outcome:
    """What became of one message: dropped, own, duplicate or handled (with a decision)."""

    status: str
    envelope: dict | None = None
    decision: policy.Decision | None = None
    reason: str | None = None
    arrived: float | None = None     # time.perf_counter() when the message reached the receiver
    subject: str | None = None       # where a dropped message came (its envelope was not taken)

    def to_dict(self) -> dict:
        e = self.envelope or {}
        named = subject_parts(self.subject) if self.subject and not e else {}
        return {"status": self.status, "event_id": e.get("event_id"),
                "event_type": e.get("event_type", named.get("event_type")),
                "agent": e.get("agent", named.get("agent")), "entity_id": e.get("entity_id"), "ts": e.get("ts"),
                "payload": e.get("payload"), "decision": self.decision.action if self.decision else None,
                "reason": self.decision.reason if self.decision else self.reason}


class Receiver:
    """One agent taking in its peers' events, through its port (Agent.sync_port)."""

    def __init__(self, port: SyncPort, *, collective: str, settings: policy.PolicySettings | None = None):
        self.port = port
        self.collective = collective
        self.settings = settings or policy.PolicySettings()
        self.drops: Counter[str] = Counter()
        self.duplicates = 0
        self.handled = 0
        self._keys: dict[str, str] | None = None
        self._looked_up: set[str] = set()  # senders whose key was looked for on the commons
        self._focus: np.ndarray | None = None

    # --- checking ----------------------------------------------------------------
    def check(self, subject_: str, data: bytes) -> dict:
        """The verified envelope of a message, or Dropped with the reason."""
        if len(data) > MAX_EVENT_BYTES:
            raise Dropped("oversize", f"{len(data)} bytes (limit {MAX_EVENT_BYTES})")
        try:
            envelope = check_envelope(json.loads(data))
        except (ValueError, UnicodeDecodeError) as e:
            if isinstance(e, EventRefused):
                raise Dropped(e.reason, str(e)) from None
            raise Dropped("malformed", "not JSON") from None
        if subject_ != subject(self.collective, envelope["agent"], envelope["event_type"]):
            raise Dropped("subject_mismatch", f"{envelope['agent']}'s {envelope['event_type']} on {subject_}")
        key = self._key_of(envelope["agent"])
        if key is None:
            raise Dropped("unknown_sender", f"no key registered for {envelope['agent']}")
        if not verify(envelope, key):
            raise Dropped("bad_signature", f"{envelope['event_type']} claiming to be from {envelope['agent']}")
        return envelope

    def _key_of(self, agent_id: str) -> str | None:
        """The sender's key: the one held for it, else (a sender never pulled) the roster's
        or the one its branch shows on the commons, fetched once per sender."""
        if self._keys is None or agent_id not in self._keys:  # a peer met since: read the registry again
            self._keys = self.port.agents.keys()
        if agent_id not in self._keys and agent_id not in self._looked_up:
            self._looked_up.add(agent_id)
            try:
                key = self.port.published_key(agent_id)
            except CollectiveError as e:  # the commons away: the sender stays unknown until it answers
                self._looked_up.discard(agent_id)
                log.warning("the key of %s could not be looked up: %s", agent_id, e)
                key = None
            if key is not None:
                self._keys[agent_id] = key
        return self._keys.get(agent_id)

    def drop(self, subject_: str, error: Dropped) -> Outcome:
        self.drops[error.reason] += 1
        log.warning("dropped event on %s: %s", subject_, error)
        state = self.port.state
        with self.port.repo.transaction():
            state.set(DROPPED + error.reason, str(int(state.get(DROPPED + error.reason) or 0) + 1))
        return Outcome("dropped", reason=error.reason, subject=subject_)

    # --- taking in ---------------------------------------------------------------
    def take(self, subject_: str, data: bytes) -> Outcome:
        """Check, dedupe, decide and record one message (one transaction)."""
        try:
            envelope = self.check(subject_, data)
        except Dropped as error:
            return self.drop(subject_, error)
        if envelope["agent"] == self.port.agent_id:
            return Outcome("own", envelope)
        port, now = self.port, iso(utcnow())
        with port.repo.transaction():
            if not port.inbox.add(envelope["event_id"], subject_, data.decode("utf-8"), at=now):
                self.duplicates += 1
                return Outcome("duplicate", envelope)
            decision = self._decide(envelope)
            port.decisions.write({"event_id": envelope["event_id"], "sender": envelope["agent"],
                                    "event_type": envelope["event_type"], "entity_id": envelope["entity_id"],
                                    "decision": decision.action, "reason": decision.reason,
                                    "decided_at": now, "done_at": None if decision.action != policy.SKIP else now})
        self.handled += 1
        return Outcome("handled", envelope, decision)

    def _decide(self, envelope: dict) -> policy.Decision:
        sender = envelope["agent"]
        score = self.port.trust_scores().get(sender, trust_rules.START)
        waiting = len(self.port.decisions.open(decision=policy.NOW, sender=sender))
        return policy.decide(envelope["event_type"], envelope["payload"], trust=score, settings=self.settings,
                             focus=self._focus_match, waiting=waiting)

    def _focus_match(self, summary: str) -> tuple[str, float] | None:
        phrases = self.settings.focus
        if not phrases:
            return None
        if self._focus is None:
            self._focus = _unit(np.asarray(self.port.embed(list(phrases)), dtype=np.float32))
        scores = self._focus @ _unit(np.asarray(self.port.embed([summary]), dtype=np.float32))[0]
        best = int(np.argmax(scores))
        return phrases[best], float(scores[best])

    # --- acting ------------------------------------------------------------------
    def act(self, outcome: Outcome) -> dict | None:
        """Pull the sender when the decision is "now"; close the decisions it satisfied.
        A pull that cannot run (no commons, the peer not pushed yet) leaves them open, and
        one that ran but did not bring the memory the event is about says so (`brought`)."""
        if outcome.decision is None or outcome.decision.action != policy.NOW:
            return None
        sender = outcome.envelope["agent"]
        try:
            result = self.port.pull(peers=[sender])
        except CollectiveError as e:
            log.warning("pull of %s after %s failed: %s", sender, outcome.envelope["event_type"], e)
            return {"peer": sender, "pulled": False, "error": str(e)}
        close_satisfied(self.port, sender)
        envelope = outcome.envelope
        brought = (envelope["event_type"] not in policy.HELD_TYPES
                   or self.port.memories.get(envelope["entity_id"]) is not None)
        return {"peer": sender, "pulled": True, "brought": brought,
                "summary": result["peers"][0]["summary"] if result["peers"] else {}}

    def counts(self) -> dict[str, Any]:
        return {"handled": self.handled, "duplicates": self.duplicates, "dropped": dict(self.drops)}


def close_satisfied(port: SyncPort, sender: str) -> None:
    """After a pull of `sender`: its open decisions whose memory is now held, and the
    non-memory ones a pull covers, are done."""
    decisions = port.decisions
    pending = decisions.open(sender=sender)
    held = port.memories.by_id([d["entity_id"] for d in pending if d["event_type"] in policy.HELD_TYPES])
    done = [d["event_id"] for d in pending if d["entity_id"] in held or d["event_type"] not in policy.HELD_TYPES]
    with port.repo.transaction():
        decisions.done(done)


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
