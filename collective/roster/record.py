"""The collective's roster as a typed record: who the collective is (its agents and their
keys), who may decide for it (reviewers), who may vouch for consensus (endorsers and how
many it takes) and who may change all that (owners, a threshold of whom sign each
version). No I/O; signing and the checks of a version are in roster/rules.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..identity import canonical, fingerprint

ENDORSEMENTS_NEEDED = 2


@dataclass(frozen=True)
class Member:
    """A named key: an agent (name = agent id) or a person (an owner or a reviewer)."""

    name: str
    key: str
    endorses: bool = True  # agents only: whether its endorsements count toward consensus

    def to_dict(self, *, agent: bool = False) -> dict:
        return {"name": self.name, "key": self.key, **({"endorses": self.endorses} if agent else {})}


@dataclass(frozen=True)
class Roster:
    """One version of a collective's roster and the owners' signatures over it."""

    collective: str
    version: int
    owners: tuple[Member, ...]
    threshold: int                      # owner signatures a next version needs (of this one's owners)
    agents: tuple[Member, ...] = ()
    reviewers: tuple[Member, ...] = ()
    endorsements: int = ENDORSEMENTS_NEEDED  # endorsements by roster endorsers that promote to main
    issued_at: str = ""
    signatures: tuple[tuple[str, str], ...] = field(default=())  # (owner key, signature)

    def document(self) -> dict:
        """What the owners sign: every field but the signatures."""
        return {"kind": "collective.roster", "collective": self.collective, "version": self.version,
                "owners": [m.to_dict() for m in self.owners], "threshold": self.threshold,
                "agents": [m.to_dict(agent=True) for m in self.agents],
                "reviewers": [m.to_dict() for m in self.reviewers], "endorsements": self.endorsements,
                "issued_at": self.issued_at}

    def claim(self) -> bytes:
        return canonical(self.document())

    def to_row(self) -> dict:
        return {"version": self.version, "document": self.claim().decode("utf-8"),
                "signatures": json.dumps([list(s) for s in self.signatures])}

    @classmethod
    def from_row(cls, row: dict) -> "Roster":
        """A row as stored; ValueError (or KeyError, TypeError) when it is not a roster."""
        doc = json.loads(row["document"])
        if doc.get("kind") != "collective.roster" or int(doc["version"]) != int(row["version"]):
            raise ValueError("not a roster version")
        return cls(collective=str(doc["collective"]), version=int(doc["version"]),
                   owners=tuple(Member(m["name"], m["key"]) for m in doc["owners"]),
                   threshold=int(doc["threshold"]),
                   agents=tuple(Member(m["name"], m["key"], bool(m.get("endorses", True))) for m in doc["agents"]),
                   reviewers=tuple(Member(m["name"], m["key"]) for m in doc["reviewers"]),
                   endorsements=int(doc["endorsements"]), issued_at=str(doc.get("issued_at", "")),
                   signatures=tuple((str(k), str(s)) for k, s in json.loads(row["signatures"] or "[]")))

    # --- who may do what ------------------------------------------------------
    def agent_key(self, agent_id: str) -> str | None:
        return next((m.key for m in self.agents if m.name == agent_id), None)

    def reviewer_keys(self) -> set[str]:
        return {m.key for m in self.reviewers}

    def endorsers(self) -> set[str]:
        return {m.name for m in self.agents if m.endorses}

    def to_dict(self) -> dict:
        out = self.document()
        out.pop("kind")
        for part in ("owners", "agents", "reviewers"):
            out[part] = [{**m, "fingerprint": fingerprint(m["key"])} for m in out[part]]
        out["signed_by"] = [fingerprint(k) for k, _ in self.signatures]
        return out
