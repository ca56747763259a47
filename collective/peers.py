"""The peers an agent knows: their keys, its trust in them, and the ledger of why.

Trust is the holder's own view (DESIGN, Trust): each change is a row in
trust_events, written beside the score it sets. A key a peer shows without a
rotation signed by the key held for it is refused and kept in `key_changes`
until a person accepts or rejects it.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from .core import trust
from .errors import NotFound
from .identity import fingerprint
from .model import iso, utcnow, uuid7, validate_agent_id
from .model.enums import KeyDecision
from .model.refs import QUARANTINE_BRANCH, agent_of_working, peer_working, tracking
from .roster import service as roster
from .store.tables import Tables

NOT_ON_ROSTER = "not_on_roster"  # an agent the roster followed here does not name: nothing of it is taken


class Peers:
    def __init__(self, tables: Tables, agent_id: str):
        self.tables = tables
        self.agent_id = agent_id

    def trust_scores(self, *, as_of: str | None = None) -> dict[str, float]:
        scores = self.tables.agents.trust_scores(as_of=as_of)
        scores[self.agent_id] = 1.0  # an agent's own memories have trust 1
        return scores

    def signer_keys(self, remote: str) -> Callable[[str], list[str]]:
        """What checks a shared row's signature: an agent's keys, the one held for it (for
        one not met yet, the one its branch, else the shared branch, shows on `remote`) and
        those it rotated away from."""
        repo = self.tables.repo
        keys: dict[str, str | None] = dict(self.tables.agents.keys())
        following = roster.held(self.tables)
        if following is not None:  # the roster's word on the keys of the agents it names
            keys.update({m.name: m.key for m in following.agents})
        rotated: dict[str, list[str]] = {}
        for row in self.tables.key_rotations.all():
            rotated.setdefault(row["agent_id"], []).append(row["old_key"])

        def key_of(agent_id: str) -> list[str]:
            if agent_id not in keys:
                keys[agent_id] = next((self.tables.agents.public_key(agent_id, as_of=ref)
                                       for ref in (peer_working(remote, agent_id), tracking(remote, QUARANTINE_BRANCH))
                                       if ref in repo.remote_branches()), None)
            return [k for k in [keys[agent_id], *rotated.get(agent_id, [])] if k]
        return key_of

    def known(self, agent_id: str) -> bool:
        return self.tables.agents.get(agent_id) is not None

    def list(self) -> list[dict]:
        """Known peers, then agents first met with a key another peer disputes (trust None),
        then agents on a commons that the roster followed here does not name (held: nothing
        of theirs is taken)."""
        held = self.tables.memories.origins()
        changes = self.tables.key_changes.all()
        following = roster.held(self.tables)
        named = None if following is None else {m.name for m in following.agents}

        def held_why(agent_id: str) -> str | None:
            return NOT_ON_ROSTER if named is not None and agent_id not in named else None
        known = [{"agent": row["agent_id"], "trust": round(float(row["trust_score"]), 4),
                  "last_sync": row["last_sync"], "last_synced_commit": row["last_synced_commit"],
                  "key_fingerprint": fingerprint(row["public_key"]), "memories": held.get(row["agent_id"], 0),
                  "key_warning": _key_warning(changes.pop(row["agent_id"], None)), "held": held_why(row["agent_id"])}
                 for row in self.tables.agents.all() if row["agent_id"] != self.agent_id]
        disputed = [{"agent": agent_id, "trust": None, "last_sync": None, "last_synced_commit": None,
                     "key_fingerprint": fingerprint(change["new_key"]), "memories": 0,
                     "key_warning": _key_warning(change), "held": held_why(agent_id)}
                    for agent_id, change in sorted(changes.items()) if _key_warning(change)]
        met = {p["agent"] for p in known + disputed} | {self.agent_id}
        unnamed = [{"agent": agent_id, "trust": None, "last_sync": None, "last_synced_commit": None,
                    "key_fingerprint": fingerprint(key) if key else None, "memories": held.get(agent_id, 0),
                    "key_warning": None, "held": NOT_ON_ROSTER}
                   for agent_id, key in sorted(self._on_commons().items())
                   if named is not None and agent_id not in named and agent_id not in met]
        return known + disputed + unnamed

    def _on_commons(self) -> dict[str, str | None]:
        """The agents whose working branch a commons holds, as last fetched, with the key
        each shows there."""
        repo, found = self.tables.repo, {}
        for branch in sorted(repo.remote_branches()):
            agent_id = agent_of_working(branch.split("/", 1)[1]) if "/" in branch else None
            if agent_id is not None and agent_id not in found:
                found[agent_id] = self.tables.agents.public_key(agent_id, as_of=branch)
        return found

    def key_rejected(self, agent_id: str, key: str) -> bool:
        """Whether a person rejected this key for this peer."""
        return self._decided(agent_id, key) == KeyDecision.REJECTED

    def key_accepted(self, agent_id: str, key: str) -> bool:
        """Whether a person accepted this key for a peer first met with it disputed."""
        return self._decided(agent_id, key) == KeyDecision.ACCEPTED

    def _decided(self, agent_id: str, key: str) -> str | None:
        change = self.tables.key_changes.get(agent_id)
        return change["status"] if change is not None and change["new_key"] == key else None

    def note_key_change(self, agent_id: str, new_key: str) -> bool:
        """Keep a refused key change for a person to decide; the caller holds the
        transaction. False when that key was noted already."""
        change = self.tables.key_changes.get(agent_id)
        if change is not None and change["new_key"] == new_key:
            return False
        self.tables.key_changes.write({"agent_id": agent_id, "new_key": new_key, "status": KeyDecision.PENDING,
                                       "seen_at": iso(utcnow())})
        return True

    def decide_key(self, agent_id: str, *, accept: bool) -> dict:
        """A person's decision on a refused key change: accepted, the new key is the
        peer's from now on; rejected, its pulls stay refused. One commit."""
        change = self.tables.key_changes.get(validate_agent_id(agent_id))
        if change is None or change["status"] == KeyDecision.ACCEPTED:
            raise NotFound("agent", f"{agent_id} has no key change waiting for a decision")
        repo = self.tables.repo
        with repo.transaction():
            if accept and self.known(agent_id):
                self.tables.agents.set_key(agent_id, change["new_key"])
                self.tables.key_changes.remove(agent_id)
            elif accept:  # first met with a disputed key: its first pull takes it
                self.tables.key_changes.write({**change, "status": KeyDecision.ACCEPTED})
            else:
                self.tables.key_changes.write({**change, "status": KeyDecision.REJECTED})
            verb = "accept" if accept else "reject"
            head = repo.commit(f"agents: {verb} key {fingerprint(change['new_key'])} of {agent_id}",
                               author=self.agent_id)
        return {"agent": agent_id, "key_fingerprint": fingerprint(change["new_key"]),
                "decision": "accepted" if accept else "rejected", "commit": head}

    def ledger(self, agent_id: str) -> dict:
        row = self.tables.agents.get(validate_agent_id(agent_id))  # "a\nb": said malformed, not cut at the break
        if row is None:
            raise NotFound("agent", f"{agent_id} is not a known peer")
        return {"agent": agent_id, "trust": float(row["trust_score"]),
                "events": [e.to_dict() for e in self.tables.ledger.of(agent_id)]}

    def move(self, moves: Iterable[tuple[str, str]], *, evidence: Mapping, verifier: str, at: str) -> None:
        """Apply (agent id, reason) trust moves for known peers, in the caller's transaction."""
        book = trust.TrustBook(self.agent_id, self.trust_scores())
        for agent_id, reason in moves:
            if not self.known(agent_id):
                continue
            moved = book.move(agent_id, reason)
            if moved is None:
                continue
            self.tables.ledger.append([trust.ledger_row(moved, event_id=uuid7(), evidence=evidence,
                                                        verifier=verifier, at=at)])
            self.tables.agents.set_trust(agent_id, moved.score_after)


def _key_warning(change: dict | None) -> str | None:
    if change is None or change["status"] == KeyDecision.ACCEPTED:
        return None
    if change["status"] == KeyDecision.REJECTED:
        return f"key {fingerprint(change['new_key'])} rejected: its pulls are refused"
    return (f"key changed to {fingerprint(change['new_key'])} without a rotation signed by the key held: "
            "cmem agents accept-key or reject-key")
