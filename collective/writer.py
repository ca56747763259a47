"""Writing an agent's own memories: store (or reinforce) and retract.

Every write is one transaction ending in one Dolt commit authored by the
agent; bad input is rejected before anything is written. Storing identical
content again reinforces the existing memory (wave superposition) instead of
duplicating it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from .config import Settings
from .core import phase as phase_mod
from .core import wave
from .embedding_model import EmbeddingModel
from .errors import BadInput, SerializationFailure
from .identity import Identity, Signing
from .quarantine.refutation import Refutations
from .reports import StoreReport
from .judge.stance import estimate as estimate_stance
from .model import (DEFAULT_AMPLITUDE, Memory, claim_of, content_hash, events, iso, summarise, unit_rows, utcnow, uuid7,
                    uuid7s, validate_amplitude, validate_category, validate_content, validate_tags, validate_vector)
from .runtime import fast
from .runtime.gc_pause import gc_paused
from .runtime.retry import retrying
from .store.tables import Tables
from .upkeep import Upkeep

if TYPE_CHECKING:
    from .store.port import Repository

# A store that lost a race on a Dolt server retries; each loser then finds the winner's row.
STORE_ATTEMPTS = 8


@dataclass
class MemoryInput:
    """What a caller gives to store one memory (validated before anything is written)."""

    content: str
    category: str | None = None
    tags: Sequence[str] = ()
    importance: float = DEFAULT_AMPLITUDE
    phase: float | None = None
    stance: str | None = None
    vector: Any = None

    @classmethod
    def of(cls, item: Any) -> "MemoryInput":
        """A MemoryInput, or one made from a mapping of its fields or from its text alone;
        anything else, an unknown key or a missing content is BadInput (the values are
        checked when it is stored)."""
        if isinstance(item, MemoryInput):
            return item
        if isinstance(item, str):
            return cls(item)
        if not isinstance(item, Mapping):
            raise BadInput("memory", f"must be text, a MemoryInput or a mapping, got {type(item).__name__}")
        unknown = sorted(str(k) for k in item if k not in _INPUT_FIELDS)
        if unknown:
            raise BadInput("memory", f"unknown key {unknown[0]!r} (known: {', '.join(_INPUT_FIELDS)})")
        if "content" not in item:
            raise BadInput("content", "missing")
        return cls(**item)

    @classmethod
    def batch(cls, items: Any) -> list["MemoryInput"]:
        """`of` for each of a list (or other iterable, but not text or a single mapping)."""
        if isinstance(items, (str, bytes, Mapping, MemoryInput)) or not isinstance(items, Iterable):
            raise BadInput("memories", f"must be a list of memories, got {type(items).__name__}")
        return [cls.of(item) for item in items]


_INPUT_FIELDS = tuple(f.name for f in fields(MemoryInput))


@dataclass
class StoreResult:
    memory: Memory
    deduplicated: bool = False
    commit: str | None = None
    supersedes: str | None = None  # the own memory it retracted in the same commit
    contradicts: list[str] | None = None  # own live memories the judge finds it contradicts; None: not asked

    def to_dict(self) -> StoreReport:
        return {**self.memory.to_dict(), "deduplicated": self.deduplicated, "commit": self.commit,
                "supersedes": self.supersedes, "contradicts": self.contradicts}


class Writer:
    def __init__(self, repo: Repository, tables: Tables, model: EmbeddingModel, identity: Identity, upkeep: Upkeep,
                 refutations: Refutations, *, agent_id: str, settings: Settings):
        self.repo = repo
        self.refutations = refutations
        self.tables = tables
        self.model = model
        self.identity = identity
        self.upkeep = upkeep
        self.agent_id = agent_id
        self.settings = settings

    def store_many(self, items: Sequence[MemoryInput]) -> list[StoreResult]:
        """Store many memories in one transaction and one commit.

        The judge does not read them here (that would halve a batch store's speed and
        load the judge into every `cmem store`): it does when the index takes them in,
        or the pull that brings them does (judge.cache)."""
        if not items:
            return []
        with gc_paused():
            prepared = self._prepare_all(items)
            self._embed_missing(prepared)
            return self._write(prepared)

    def compose(self, content: str, *, parents: Sequence[str], category: str | None = None,
                importance: float = DEFAULT_AMPLITUDE, tags: Sequence[str] = ()) -> Memory:
        """A new memory of this agent with lineage, signed but not written (a merged verdict
        or a challenge stores it in its own commit)."""
        prepared = [self._prepare(MemoryInput(content, category, tuple(tags), importance))]
        self._embed_missing(prepared)
        memory = self._new_memory(prepared[0], iso(utcnow()))
        memory.parents = list(parents)
        memory.signature = self.identity.sign(memory.claim())
        return memory

    def _prepare_all(self, items: Sequence[MemoryInput]) -> list[dict]:
        """_prepare of each, the vectors checked at once where every item brings a good one."""
        vectors = [item.vector for item in items]
        rows = unit_rows(vectors, self.model.dim) if all(v is not None for v in vectors) else None
        if rows is None:  # some to embed, or one bad: each on its own, the first bad one named
            return [self._prepare(item) for item in items]
        return [self._prepare(item, row) for item, row in zip(items, rows)]

    def _prepare(self, item: MemoryInput, checked_vector: Any = None) -> dict:
        content = validate_content(item.content)
        phase, stance = None, None  # the wording's phase: estimated when needed (_phase)
        if item.phase is not None or item.stance is not None:
            phase, stance = phase_mod.resolve(content, estimator=estimate_stance, phase=item.phase, stance=item.stance)
        vector = checked_vector
        if vector is None and item.vector is not None:
            vector = validate_vector(item.vector, self.model.dim)
        return {"content": content, "hash": content_hash(content), "category": validate_category(item.category),
                "tags": validate_tags(item.tags), "amplitude": validate_amplitude(item.importance),
                "phase": phase, "stance": stance, "vector": vector, "model_version": self.model.version}

    def _embed_missing(self, prepared: list[dict]) -> None:
        missing = [p for p in prepared if p["vector"] is None]
        if missing:
            vectors = self.model.embed([p["content"] for p in missing])
            rows = unit_rows(vectors, self.model.embedder.dim)
            for i, p in enumerate(missing):
                p["vector"] = rows[i] if rows is not None else validate_vector(vectors[i], self.model.embedder.dim)

    def _write(self, prepared: list[dict]) -> list[StoreResult]:
        results = retrying(lambda: self._write_once(prepared), retry_on=SerializationFailure,
                           attempts=STORE_ATTEMPTS)
        self.upkeep.after_commit()
        return results

    def _write_once(self, prepared: list[dict]) -> list[StoreResult]:
        """One try: what to reinforce is read inside the write transaction, after claiming each
        text's bucket, so a concurrent store of the same text is either seen here or makes this
        transaction fail with SerializationFailure (and the retry sees it)."""
        with self.repo.transaction():
            self.tables.store_claims.claim([p["hash"] for p in prepared], uuid7())
            by_hash = self._own_by_hash({p["hash"] for p in prepared})
            now, ids = iso(utcnow()), uuid7s(len(prepared))
            sure = _surely_new(prepared, by_hash)
            with self.identity.signing(sure, claim=lambda i: self._claim(prepared[i], now, ids[i])) as signing:
                # what the signatures do not change is made while children make them
                results = self._plan(prepared, by_hash, now, ids)
                reinforced = {r.memory.id: r.memory for r in results if r.deduplicated}
                new = [r.memory for r in results if not r.deduplicated]
                self.tables.outbox.add(events.stored(new, reinforced.values()))
                self._insert_signed(results, sure, signing)
                rule = self.refutations.rule()
                if rule:  # a claim a person's verdict refuted, stored again, is refuted as it is held elsewhere
                    self.refutations.settle(new, rule=rule, now=iso(utcnow()))
                for memory in reinforced.values():
                    self.tables.memories.set(memory.id, amplitude=memory.amplitude, phase=memory.phase,
                                             updated_at=memory.updated_at, sync_version=memory.sync_version)
                head = self.repo.commit(_store_message(results), author=self.agent_id)  # as the children end
        for r in results:
            r.commit = head
        return results

    def _plan(self, prepared: list[dict], by_hash: dict[str, Memory], now: str,
              ids: Sequence[str]) -> list[StoreResult]:
        """For each text, a new memory (not yet signed; the i-th text's id is ids[i]), or the
        live one with its hash and stance reinforced."""
        results: list[StoreResult] = []
        for p, memory_id in zip(prepared, ids):
            existing = by_hash.get(p["hash"])
            if existing is not None and wave.phase_difference(existing.phase, _phase(p)) < wave.CONSTRUCTIVE_MAX:
                existing.amplitude, existing.phase = wave.superpose(existing.amplitude, existing.phase, p["amplitude"],
                                                                    p["phase"], cap=self.settings.amplitude_cap)
                existing.updated_at, existing.sync_version = now, existing.sync_version + 1
                results.append(StoreResult(existing, deduplicated=True))
                continue
            memory = self._unsigned(p, now, memory_id)
            by_hash[p["hash"]] = memory
            results.append(StoreResult(memory))
        return results

    def _insert_signed(self, results: list[StoreResult], sure: list[int], signing: Signing) -> None:
        """Write the new memories of a plan, each part once its signatures are made (rows go
        in in any order). The texts `sure` did not name are new all the same where they were
        held, or met earlier in the batch, at another phase: signed here."""
        rows = {i: r.memory.to_row() for i, r in enumerate(results) if not r.deduplicated}
        for start, signatures in signing.ready():
            part = sure[start:start + len(signatures)]
            for i, signature in zip(part, signatures):
                results[i].memory.signature = rows[i]["signature"] = signature
            self.tables.memories.insert_rows([rows[i] for i in part])
        rest = sorted(rows.keys() - set(sure))
        for i, signature in zip(rest, self.identity.sign_many([_claim(results[i].memory) for i in rest])):
            results[i].memory.signature = rows[i]["signature"] = signature
        self.tables.memories.insert_rows([rows[i] for i in rest])

    def _claim(self, p: dict, now: str, memory_id: str) -> bytes:
        """The claim of the memory _unsigned(p, now, memory_id) makes, without making it."""
        return claim_of(memory_id, self.agent_id, p["hash"], p["model_version"], p["category"], p["stance"],
                        p["tags"], (), now, False)

    def _new_memory(self, p: dict, now: str) -> Memory:
        memory = self._unsigned(p, now, uuid7())
        memory.signature = self.identity.sign(_claim(memory))
        return memory

    def _unsigned(self, p: dict, now: str, memory_id: str) -> Memory:
        """A new memory of this agent from a prepared input, every field given (no defaults
        to apply, so built without the dataclass's __init__: a batch makes thousands)."""
        content, vector = p["content"], p["vector"]
        return fast.from_fields(Memory, {
            "id": memory_id, "content": content, "summary": summarise(content), "vector": vector,
            "dim": int(vector.shape[0]), "model_version": p["model_version"], "content_hash": p["hash"],
            "amplitude": p["amplitude"], "phase": _phase(p), "category": p["category"],
            "origin_agent": self.agent_id, "created_at": now, "updated_at": now, "stance": p["stance"],
            "tags": p["tags"], "layer": 0, "sync_version": 1, "merge_history": [], "last_consolidated_at": None,
            "disputed": False, "hallucinated": False, "parents": [], "absorbed_into": None, "retracted": False,
            "signature": "", "refuted_by": None, "valid_until": None})

    def _own_by_hash(self, hashes: set[str]) -> dict[str, Memory]:
        """This agent's live memories with these content hashes (what a store reinforces)."""
        return {m.content_hash: m for m in self.tables.memories.by_hash(hashes)
                if m.origin_agent == self.agent_id and not m.retracted and m.absorbed_into is None}

    def forget(self, memory_id: str) -> dict:
        """Retract one of this agent's own memories (a signed, committed change; never a delete)."""
        memory = self._own(memory_id, "retract")
        if memory.retracted:
            return {"id": memory_id, "retracted": True, "changed": False, "commit": None}
        with self.repo.transaction():
            self._retract(memory)
            head = self.repo.commit(f"retract {memory_id}: {memory.summary[:72]}", author=self.agent_id)
        self.upkeep.after_commit()
        return {"id": memory_id, "retracted": True, "changed": True, "commit": head}

    def update(self, memory_id: str, content: str) -> dict:
        """Correct one of this agent's own memories: the corrected text becomes a new memory
        whose parent is the old one (same category, tags and importance), and the old one is
        retracted, in one commit; history keeps both, and peers take both at their next pull."""
        memory = self._own(memory_id, "update")
        if memory.retracted:
            raise BadInput("memory", f"{memory_id} is retracted: store the corrected text anew")
        # a stance the writer gave (stance is kept only when given) holds for the corrected text too
        corrected = self._replace(memory, MemoryInput(content, memory.category, tuple(memory.tags),
                                                      min(memory.amplitude, 1.0), stance=memory.stance), "update")
        return {"id": corrected.memory.id, "content": corrected.memory.content, "replaces": memory_id,
                "commit": corrected.commit}

    def supersede(self, memory_id: str, item: MemoryInput) -> StoreResult:
        """Store a memory that supersedes one of this agent's own live memories: as `update`,
        but the new memory is described by `item` (its own category, tags, importance, stance).
        Any other memory is bad input naming `supersedes`, and nothing is written."""
        memory = self.tables.memories.get(memory_id) if isinstance(memory_id, str) else None
        if memory is None:
            raise BadInput("supersedes", f"no memory {memory_id!r} here to supersede")
        if memory.origin_agent != self.agent_id:
            raise BadInput("supersedes", f"{memory_id} belongs to {memory.origin_agent}; only its origin can "
                                         "supersede it (challenge it instead)")
        if memory.retracted or memory.refuted_by or memory.absorbed_into:
            state = "retracted" if memory.retracted else "refuted" if memory.refuted_by else "absorbed"
            raise BadInput("supersedes", f"{memory_id} is {state}, not a live memory of this agent")
        return self._replace(memory, item, "supersede", field="supersedes")

    def _replace(self, memory: Memory, item: MemoryInput, verb: str, *, field: str = "content") -> StoreResult:
        """A new memory from `item`, its parent `memory`, which is retracted: one commit."""
        prepared = [self._prepare(item)]
        if prepared[0]["hash"] == memory.content_hash:
            raise BadInput(field, f"{memory.id} holds this text already: nothing to {verb}")
        self._embed_missing(prepared)
        corrected = self._new_memory(prepared[0], iso(utcnow()))
        corrected.parents = [memory.id]
        corrected.signature = self.identity.sign(corrected.claim())
        with self.repo.transaction():
            self._retract(memory)
            self.tables.memories.insert([corrected])
            rule = self.refutations.rule()
            if rule:
                self.refutations.settle([corrected], rule=rule, now=iso(utcnow()))
            self.tables.outbox.add(events.stored([corrected], []))
            head = self.repo.commit(f"{verb} {memory.id} -> {corrected.id}: {corrected.summary[:60]}",
                                    author=self.agent_id)
        self.upkeep.after_commit()
        return StoreResult(corrected, commit=head, supersedes=memory.id)

    def _own(self, memory_id: str, verb: str) -> Memory:
        memory = self.tables.memories.require(memory_id)
        if memory.origin_agent != self.agent_id:
            raise BadInput("memory", f"{memory_id} belongs to {memory.origin_agent}; only its origin can {verb} it")
        return memory

    def _retract(self, memory: Memory) -> None:
        """Retract it, signed, with its event; the caller holds the transaction."""
        memory.retracted = True
        memory.updated_at = iso(utcnow())
        memory.sync_version += 1
        memory.signature = self.identity.sign(memory.claim())
        self.tables.memories.set(memory.id, retracted=1, updated_at=memory.updated_at,
                                 sync_version=memory.sync_version, signature=memory.signature)
        # copies of other origins that it absorbed were never retracted: they are recalled again
        for copy in self.tables.memories.absorbed_into_any([memory.id]):
            self.tables.memories.set(copy["id"], absorbed_into=None, updated_at=memory.updated_at)
        self.tables.outbox.add(events.pruned(memory, "retracted"))


def _claim(memory: Memory) -> bytes:
    return memory.claim(hashed=memory.content_hash)  # its hash was made from its content just now


def _phase(p: dict) -> float:
    """A prepared text's phase; where none was given, its wording's, estimated the first time it
    is needed (a batch store's plan, made while its new memories are signed, needs them all)."""
    if p["phase"] is None:
        p["phase"] = phase_mod.resolve(p["content"], estimator=estimate_stance)[0]
    return p["phase"]


def _surely_new(prepared: list[dict], held: Mapping[str, Memory]) -> list[int]:
    """The texts a plan makes new memories of whatever their phase: held by no live memory of
    this agent and not met earlier in the batch."""
    first: dict[str, int] = {}
    return [i for i, p in enumerate(prepared) if p["hash"] not in held and first.setdefault(p["hash"], i) == i]


def _store_message(results: Sequence[StoreResult]) -> str:
    if len(results) == 1:
        r = results[0]
        verb = "reinforce" if r.deduplicated else "store"
        return f"{verb} {r.memory.id}: {r.memory.summary[:72]}"
    added = sum(1 for r in results if not r.deduplicated)
    return f"store {added} memories, reinforce {len(results) - added}"
