"""Which memories a person's verdicts refute: a rule every holder evaluates alike.

A memory is refuted when a verdict applied here names it on a losing side, or when it
says the same thing as a memory a verdict names so. "The same thing" is decided on what
every holder holds alike: the two texts and stances, read by the comparator as a merge
reads them, and the cosine of each text's own embedding, which must clear the merge's
similarity threshold as an absorption must. A holder's stored vector and phase are its
own state (an absorption blends them), and which copy it absorbed into which depends on
the order it met them; neither enters, so holders that took the same memories and
verdicts in any order agree on what is refuted. A verdict's winners and the memories a
verdict made are refuted only by name. Refuted by several verdicts: the least
(refuted_by, valid_until).

The rule is evaluated for a memory when it is stored or arrives, and for the memories
near a named loser when its verdict takes effect (or is withdrawn) or it arrives. Those
are found from the stored vectors, down to PREFILTER_MARGIN below the threshold (the
drift a blend gives a vector), then decided on the texts' own embeddings.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence

import numpy as np

from ..judge.stance import estimate as estimate_stance
from ..model import STANCES, Memory, blob_to_vector
from ..model.enums import CaseStatus, Relation
from ..roster.service import reviewer_keys
from .cases import NO_STANDING, Standing, standing, withdrawn

if TYPE_CHECKING:
    from ..store.tables import Tables

Refutation = tuple[str, str]  # (refuted_by, valid_until)
PREFILTER_MARGIN = 0.2
SCAN_PART = 20_000  # held rows read at a time when a named loser is new here


class SameClaim:
    """Whether two memories say the same thing, on what every holder holds alike.
    `comparator` makes the merge's comparator (merge.Comparator), on first use; `model`
    is the agent's embedding model (embed, version, dim)."""

    def __init__(self, comparator: Callable[[], Any], model: Any, threshold: float):
        self._comparator_of, self._comparator = comparator, None
        self.model = model
        self.threshold = threshold
        self.floor = threshold - PREFILTER_MARGIN  # the least stored cosine worth deciding
        self._embedded: dict[str, np.ndarray] = {}

    def vector(self, memory: Memory) -> np.ndarray:
        """The memory's own embedding: the vector its origin stored, while no absorption
        here blended it; else its text embedded here, one text at a time (a batch may round
        differently). A memory of another model: its text embedded here. "Here" is the
        embedder this process embeds with (loaded for it), not the model the agent's row
        names: a process whose embedder differs (a CLI beside an agent made with another)
        must not compare vectors of two models, or of two sizes."""
        embedder = self.model.embedder
        if (not _blended(memory) and memory.model_version == embedder.model_version
                and memory.vector.shape[0] == embedder.dim):
            return memory.vector
        if memory.content not in self._embedded:
            self._embedded[memory.content] = np.asarray(embedder.embed([memory.content])[0], dtype=np.float32)
        return self._embedded[memory.content]

    def __call__(self, a: Memory, b: Memory) -> bool:
        if a.content == b.content and a.stance == b.stance:
            return True
        va, vb = self.vector(a), self.vector(b)
        similarity = float(va @ vb)
        if not similarity >= self.threshold:
            return False
        if self._comparator is None:
            self._comparator = self._comparator_of()
        x, y = _as_written(a, va), _as_written(b, vb)
        # either way round: a comparator need not be symmetric, and the rule must be
        return any(self._comparator.relate(p, q, similarity).relation == Relation.CONSTRUCTIVE
                   for p, q in ((x, y), (y, x)))


def _blended(memory: Memory) -> bool:
    return any(h.get("type") == Relation.CONSTRUCTIVE for h in memory.merge_history)


def _as_written(memory: Memory, vector: np.ndarray) -> Memory:
    """The memory with the phase its stance (else its wording) gives it and its own vector:
    what its origin wrote, before any holder's merges moved them."""
    out = memory.copy()
    out.vector = vector
    out.phase = STANCES[memory.stance] if memory.stance in STANCES else float(estimate_stance(memory.content))
    return out


class Rule:
    """The rule, with the verdicts applied here and the named losers held here."""

    def __init__(self, decided: Standing, losers: Sequence[Memory], same: SameClaim):
        self.decided = decided
        self.losers = list(losers)
        self.same = same
        self._matrix = (np.stack([same.vector(m) for m in self.losers]) if self.losers
                        else np.zeros((0, 0), dtype=np.float32))

    def __bool__(self) -> bool:
        return bool(self.decided.losers or self.decided.withdrawn)

    def of(self, memory: Memory) -> Optional[Refutation]:
        """The refutation the rule gives this memory, or None."""
        named = self.decided.losers.get(memory.id) or self.decided.withdrawn.get(memory.id)
        if named is not None:
            return named
        if not self.losers or memory.id in self.decided.made or memory.id in self.decided.winners:
            return None
        found = [self.decided.losers[loser.id] for loser in self._near(memory) if self.same(memory, loser)]
        return min(found) if found else None

    def change(self, memory: Memory) -> Optional[tuple[Optional[str], Optional[str]]]:
        """The (refuted_by, valid_until) the row must be given, (None, None) to clear it, or
        None when the row already holds the rule's answer."""
        found = self.of(memory) or (None, None)
        held = (memory.refuted_by, memory.valid_until) if memory.refuted_by else (None, None)
        return None if held == found else found

    def _near(self, memory: Memory) -> list[Memory]:
        """The named losers within the prefilter of the memory's stored vector (a memory of
        another model: its text embedded here)."""
        vector = memory.vector if memory.model_version == self.same.model.version and \
            memory.vector.shape[0] == self._matrix.shape[1] else self.same.vector(memory)
        similarities = self._matrix @ vector
        return [loser for loser, s in zip(self.losers, similarities) if s >= self.same.floor]


class Refutations:
    """The rule applied to an agent's rows; the caller holds the transaction."""

    def __init__(self, tables: Tables, same: SameClaim):
        self.tables = tables
        self.same = same

    def decided(self) -> Standing:
        """What the verdicts that took effect here and stand on their cases decided."""
        applied = self.tables.applied_verdicts.by_case()
        decided = NO_STANDING if not applied else standing(
            [c for c in self.tables.cases.all(status=CaseStatus.RESOLVED) if c.id in applied
             and applied[c.id]["verdict_signature"] in (None, c.verdict_signature)])
        # a reopening applies no verdict, yet withdraws what the verdict it reopened made
        authorised = reviewer_keys(self.tables)
        gone = withdrawn(c for c in self.tables.cases.all() if (c.decision() or {}).get("reviewer_key") in authorised)
        return replace(decided, withdrawn=gone) if gone else decided

    def rule(self, decided: Standing | None = None) -> Rule:
        """The rule with those verdicts and the named losers held here."""
        decided = self.decided() if decided is None else decided
        if not decided.losers:
            return Rule(decided, [], self.same)
        held = self.tables.memories.by_id(sorted(decided.losers))
        return Rule(decided, [held[i] for i in sorted(held)], self.same)

    def settle(self, memories: Iterable[Memory], *, now: str, rule: Rule | None = None) -> int:
        """Write the rule's refutation of each memory where it differs from the row's;
        a memory it refutes lets go of the copies absorbed into it that it does not
        (refuted with it, they would be hidden). Returns how many rows changed."""
        rule = rule if rule is not None else self.rule()
        changed = 0
        for memory in memories:
            found = rule.change(memory)
            if found is None:
                continue
            self.tables.memories.set(memory.id, refuted_by=found[0], valid_until=found[1], updated_at=now)
            memory.refuted_by, memory.valid_until = found
            changed += 1
            if found[0] is not None:
                changed += self._release_copies(memory, rule, now)
        return changed

    def _release_copies(self, memory: Memory, rule: Rule, now: str) -> int:
        copies = self.tables.memories.by_id([r["id"] for r in self.tables.memories.absorbed_into_any([memory.id])])
        released = 0
        for copy in copies.values():
            if rule.of(copy) is None:
                self.tables.memories.set(copy.id, absorbed_into=None, updated_at=now)
                released += 1
        return released

    def after_losers(self, ids: Iterable[str], *, now: str, also: Iterable[str] = ()) -> int:
        """Settle every held memory near those of `ids` that are named losers (a verdict
        took effect or was withdrawn here, or they arrived), and the memories `also` names."""
        decided, wanted, also = self.decided(), set(ids), set(also)
        # a pull that brought no named loser: no rows read
        if not also and not wanted & (decided.losers.keys() | decided.withdrawn.keys()):
            return 0
        rule = self.rule(decided)
        losers = [m for m in rule.losers if m.id in wanted]
        near = also | {m.id for m in losers}
        if losers:
            near |= self._scan(np.stack([self.same.vector(m) for m in losers]))
        return self.settle(self.tables.memories.by_id(sorted(near)).values(), now=now, rule=rule)

    def _scan(self, queries: np.ndarray) -> set[str]:
        """The held rows whose stored vector comes within the prefilter of any query."""
        found: set[str] = set()
        rows = self.tables.memories.rows(columns=("id", "vector", "model_version"))
        version = self.same.model.version
        for start in range(0, len(rows), SCAN_PART):
            part = rows[start:start + SCAN_PART]
            ours = [r for r in part if r["model_version"] == version]
            if ours:
                best = (np.stack([blob_to_vector(r["vector"]) for r in ours]) @ queries.T).max(axis=1)
                found.update(r["id"] for r, s in zip(ours, best) if s >= self.same.floor)
            found.update(r["id"] for r in part if r["model_version"] != version)  # decided on their texts
        return found
