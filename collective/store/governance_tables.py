"""Typed access to the tables of who may do what and what they decided: the roster,
reviewers, applied verdicts, endorsements, proposals for main (schema 008), key
rotations and refused key changes (schema 003)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from ..model import Case, Endorsement, Promotion

if TYPE_CHECKING:
    from .port import Repository


class ReviewerTable:
    """`reviewers`: the people whose verdicts this agent honours."""

    name = "reviewers"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def all(self) -> list[dict]:
        return self.repo.select(self.name, order_by="name")

    def keys(self) -> set[str]:
        return {r["public_key"] for r in self.repo.select(self.name, columns=("public_key",))}

    def get(self, name: str) -> dict | None:
        rows = self.repo.select(self.name, {"name": name})
        return rows[0] if rows else None

    def write(self, row: Mapping) -> None:
        self.repo.upsert(self.name, [row], key=["name"])

    def remove(self, name: str) -> None:
        self.repo.delete(self.name, {"name": name})


class AppliedVerdicts:
    """`applied_verdicts`: the verdicts whose effects this agent applied (once each)."""

    name = "applied_verdicts"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def case_ids(self) -> set[str]:
        return {r["case_id"] for r in self.repo.select(self.name, columns=("case_id",))}

    def by_case(self) -> dict[str, dict]:
        """case id -> {"case_id", "reviewer_key", "applied_at", "verdict_signature", "resolution"}
        (the last two None for verdicts applied before schema 009)."""
        return {r["case_id"]: r for r in self.repo.select(self.name)}

    def remove(self, case_id: str) -> None:
        """The case's verdict applied here was withdrawn."""
        self.repo.delete(self.name, {"case_id": case_id})

    def add(self, case: Case, reviewer_key: str, *, at: str) -> None:
        """Record that this case's verdict, as the row holds it now, took effect here."""
        self.repo.upsert(self.name, [{"case_id": case.id, "reviewer_key": reviewer_key, "applied_at": at,
                                      "verdict_signature": case.verdict_signature, "resolution": case.resolution}],
                         key=["case_id"])


class EndorsementTable:
    """`endorsements`: an agent's signed support for promoting a memory to main, as Endorsement records."""

    name = "endorsements"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def of(self, memory_id: str, *, as_of: str | None = None) -> list[Endorsement]:
        return [Endorsement.from_row(r)
                for r in self.repo.select(self.name, {"memory_id": memory_id}, order_by="agent_id", as_of=as_of)]

    def all(self, *, as_of: str | None = None) -> list[Endorsement]:
        return [Endorsement.from_row(r) for r in self.repo.select(self.name, order_by="memory_id", as_of=as_of)]

    def write(self, endorsements: Iterable[Endorsement]) -> None:
        rows = [e.to_row() for e in endorsements]
        if rows:
            self.repo.upsert(self.name, rows, key=["memory_id", "agent_id"])


class PromotionTable:
    """`promotions`: memories proposed for main, each with a person's decision once made, as
    Promotion records."""

    name = "promotions"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def get(self, memory_id: str, *, as_of: str | None = None) -> Promotion | None:
        rows = self.repo.select(self.name, {"memory_id": memory_id}, as_of=as_of)
        return Promotion.from_row(rows[0]) if rows else None

    def by_id(self, *, as_of: str | None = None) -> dict[str, Promotion]:
        return {p.memory_id: p for p in map(Promotion.from_row,
                                            self.repo.select(self.name, order_by="proposed_at", as_of=as_of))}

    def write(self, promotions: Iterable[Promotion]) -> None:
        rows = [p.to_row() for p in promotions]
        if rows:
            self.repo.upsert(self.name, rows, key=["memory_id"])


class KeyRotations:
    """`key_rotations`: an agent's new keys, each signed by the key before it."""

    name = "key_rotations"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def of(self, agent_id: str, *, as_of: str | None = None) -> list[dict]:
        return self.repo.select(self.name, {"agent_id": agent_id}, order_by="rotated_at", as_of=as_of)

    def all(self) -> list[dict]:
        return self.repo.select(self.name, order_by="rotated_at")

    def remove(self, agent_id: str, old_keys: Sequence[str]) -> None:
        """Forget the agent's rotations away from these keys."""
        if old_keys:
            self.repo.delete(self.name, {"agent_id": agent_id, "old_key": list(old_keys)})

    def write(self, rows: Sequence[Mapping]) -> None:
        if rows:
            self.repo.upsert(self.name, list(rows), key=["agent_id", "new_key"])


class KeyChanges:
    """`key_changes`: keys peers showed without a rotation the held key signed."""

    name = "key_changes"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def all(self) -> dict[str, dict]:
        return {r["agent_id"]: r for r in self.repo.select(self.name)}

    def get(self, agent_id: str) -> dict | None:
        rows = self.repo.select(self.name, {"agent_id": agent_id})
        return rows[0] if rows else None

    def write(self, row: Mapping) -> None:
        self.repo.upsert(self.name, [row], key=["agent_id"])

    def remove(self, agent_id: str) -> None:
        self.repo.delete(self.name, {"agent_id": agent_id})


class RosterTable:
    """`roster`: the versions of the collective's roster this agent verified (schema 010)."""

    name = "roster"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def rows(self, *, as_of: str | None = None) -> list[dict]:
        return self.repo.select(self.name, order_by="version", as_of=as_of)

    def latest(self) -> dict | None:
        rows = self.rows()
        return rows[-1] if rows else None

    def write(self, rows: Sequence[Mapping]) -> None:
        if rows:
            self.repo.upsert(self.name, list(rows), key=["version"])
