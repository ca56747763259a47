"""The porcelain: one agent's memory. `Agent.open(...)` then store, recall, ...

Every write is one transaction ending in one Dolt commit authored by the
agent; bad input is rejected before anything is written.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from .core import phase as phase_mod
from .judge.stance import estimate as estimate_stance
from .core import trust, wave
from .judge import cache as analyses
from .config import Home, Settings
from .embed import DEFAULT_DIM, DEFAULT_MODEL_VERSION, Embedder, default_embedder
from .errors import AgentExists, BadInput, NotFound, StorageError
from .runtime.gc_pause import gc_paused
from .identity import Identity, fingerprint
from .index import EF_SEARCH, VectorIndex, score_table, strengths
from .model import (DEFAULT_AMPLITUDE, Memory, blob_to_vector, content_hash, iso, parse_time, summarise,
                    utcnow, uuid7, validate_agent_id, validate_amplitude, validate_category,
                    validate_content, validate_tags, validate_vector)
from .store.base import Commit, SqlRepository
from .store import Location


def _lazy_module(name: str):
    """A module that loads on first use: store and recall never touch the merge machinery,
    and not importing it saves a `cmem store` a tenth of a second (importlib.util.LazyLoader)."""
    import importlib.util
    import sys

    full = f"{__package__}.{name}"
    if full in sys.modules:
        return sys.modules[full]
    spec = importlib.util.find_spec(full)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[full] = module
    spec.loader.exec_module(module)
    return module


exchange, merge, quarantine, _judge = (_lazy_module(n) for n in ("exchange", "merge", "quarantine", "judge"))


def default_judge():
    """The built-in pairwise judge (its module loads on first use)."""
    return _judge.default_judge()


if TYPE_CHECKING:
    from .judge import Judge

KEY_FILE = "ed25519.pem"
BOOST_STEP, BOOST_MAX = 0.05, 2.0
OVERFETCH = 3
ACCESS_FLUSH_SECONDS = 2.0  # buffered access counts reach the database at least this often, and on close


def working_branch(agent_id: str) -> str:
    return f"{agent_id}/working"


@dataclass
class StoreResult:
    memory: Memory
    deduplicated: bool = False
    commit: str | None = None

    def to_dict(self) -> dict:
        return {**self.memory.to_dict(), "deduplicated": self.deduplicated, "commit": self.commit}


@dataclass
class RecallHit:
    memory: Memory
    score: float
    similarity: float
    strength: float
    access_count: int = 0

    def to_dict(self) -> dict:
        return {"id": self.memory.id, "score": round(self.score, 6), "similarity": round(self.similarity, 6),
                "strength": round(self.strength, 6), "access_count": self.access_count,
                "disputed": self.memory.disputed, "summary": self.memory.summary,
                "content": self.memory.content, "category": self.memory.category,
                "origin_agent": self.memory.origin_agent, "amplitude": round(self.memory.amplitude, 6),
                "created_at": self.memory.created_at}


@dataclass
class MemoryInput:
    """What a caller gives to store one memory (validated by Agent)."""

    content: str
    category: str | None = None
    tags: Sequence[str] = ()
    importance: float = DEFAULT_AMPLITUDE
    phase: float | None = None
    stance: str | None = None
    vector: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict)


class Agent:
    """One agent's memory database, branch, key and index."""

    def __init__(self, home: Home, agent_id: str, repo: SqlRepository, identity: Identity,
                 *, embedder: Embedder | None = None, branch: str | None = None, judge: Judge | None = None):
        self.home = home
        self.agent_id = agent_id
        self.repo = repo
        self.identity = identity
        self.settings: Settings = home.settings
        self._embedder = embedder
        self._judge = judge
        self.branch = branch or working_branch(agent_id)
        self._index: VectorIndex | None = None
        self.location: Location | None = None  # set by open()
        self._pending_access: dict[str, int] = {}
        self._access_stamp = ""
        self._access_flushed = time.monotonic()
        self._access_table: dict[str, int] | None = None  # local_access as last read
        self._access_read = 0.0

    # --- lifecycle -------------------------------------------------------
    @classmethod
    def init(cls, agent_id: str, *, home: str | Path | None = None, exist_ok: bool = False,
             embedder: Embedder | None = None, display_name: str | None = None,
             backend: str | None = None, dolt_url: str | None = None) -> "Agent":
        """Create the agent's database (branches main and <id>/working), key and own row."""
        agent_id = validate_agent_id(agent_id)
        the_home = Home.at(home)
        folder = the_home.agent_dir(agent_id)
        if Location.find(folder, the_home.root) is not None:
            if not exist_ok:
                raise AgentExists("agent", f"{agent_id} is already initialised in {the_home.root} (use --exist-ok)")
            return cls.open(agent_id, home=the_home.root, embedder=embedder)
        location = Location.new(folder, the_home.root, agent_id, backend=backend, dolt_url=dolt_url)
        first = not the_home.agents()
        (folder / KEY_FILE).unlink(missing_ok=True)  # an interrupted init left it; nothing refers to it
        repo = None
        try:
            repo = location.create()
            identity = Identity.generate(folder / KEY_FILE)
            now = iso(utcnow())
            repo.migrate(author=agent_id, now=now)
            model = embedder or _LazyModel()
            with repo.transaction():
                repo.insert("agents", [{
                    "agent_id": agent_id, "display_name": display_name or agent_id,
                    "public_key": identity.public_key, "trust_score": 1.0,
                    "branch_name": working_branch(agent_id), "model_version": model.model_version,
                    "last_synced_commit": None, "last_sync": None,
                    "capabilities": json.dumps({"dim": model.dim}), "created_at": now}])
                repo.commit(f"init agent {agent_id}", author=agent_id)
            repo.create_branch(working_branch(agent_id))
            repo.close()
            repo = None
            location.finish()
        except BaseException:
            if repo is not None:
                repo.close()
            location.discard()
            (folder / KEY_FILE).unlink(missing_ok=True)
            raise
        if first:
            the_home.remember_default_agent(agent_id)
        return cls.open(agent_id, home=the_home.root, embedder=embedder)

    @classmethod
    def open(cls, agent_id: str | None = None, *, home: str | Path | None = None,
             embedder: Embedder | None = None, branch: str | None = None,
             judge: Judge | None = None) -> "Agent":
        the_home = Home.at(home)
        agent_id = the_home.resolve_agent(agent_id)
        folder = the_home.agent_dir(agent_id)
        location = Location.find(folder, the_home.root)
        if location is None:
            raise NotFound("agent", f"{agent_id} was never initialised in {the_home.root}; run `cmem init --agent {agent_id}`")
        repo = location.open()
        try:
            identity = Identity.load(folder / KEY_FILE)
            agent = cls(the_home, agent_id, repo, identity, embedder=embedder, branch=branch, judge=judge)
            agent.location = location
            if agent.branch not in repo.branches():
                raise NotFound("branch", f"no branch {agent.branch!r}")
            repo.checkout(agent.branch)
            repo.migrate(author=agent_id, now=iso(utcnow()))
        except BaseException:
            repo.close()
            raise
        return agent

    def close(self) -> None:
        try:
            self.flush_access()
        finally:
            if self._index is not None:
                self._index.save()
            self.repo.close()

    def __enter__(self) -> "Agent":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def folder(self) -> Path:
        return self.home.agent_dir(self.agent_id)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    # --- store -----------------------------------------------------------
    def store(self, content: str, *, category: str | None = None, tags: Sequence[str] = (),
              importance: float = DEFAULT_AMPLITUDE, phase: float | None = None,
              stance: str | None = None, vector: Any = None) -> StoreResult:
        """Store one memory as one commit; identical content reinforces instead."""
        item = MemoryInput(content, category, tags, importance, phase, stance, vector)
        return self.store_many([item])[0]

    def store_many(self, items: Iterable[MemoryInput | Mapping[str, Any]]) -> list[StoreResult]:
        """Store many memories in one transaction and one commit.

        The judge does not read them here (that would halve a batch store's speed and
        load the judge into every `cmem store`): it does when the index takes them in
        (prepare), or the pull that brings them does (collective.analyses)."""
        items = [i if isinstance(i, MemoryInput) else MemoryInput(**i) for i in items]
        if not items:
            return []
        with gc_paused():
            return self._store(items)

    def _store(self, items: list[MemoryInput]) -> list[StoreResult]:
        prepared = [self._prepare(i, position) for position, i in enumerate(items)]
        missing = [n for n, p in enumerate(prepared) if p["vector"] is None]
        if missing:
            vectors = self.embedder.embed([prepared[n]["content"] for n in missing])
            for n, v in zip(missing, vectors):
                prepared[n]["vector"] = validate_vector(v, self.embedder.dim)
        now = iso(utcnow())
        results: list[StoreResult] = []
        new_rows: list[dict] = []
        reinforced: dict[str, Memory] = {}
        by_hash = self._existing_by_hash({p["hash"] for p in prepared})
        for p in prepared:
            existing = by_hash.get(p["hash"])
            if existing is not None and wave.phase_difference(existing.phase, p["phase"]) < wave.CONSTRUCTIVE_MAX:
                amplitude, merged_phase = wave.superpose(existing.amplitude, existing.phase, p["amplitude"],
                                                         p["phase"], cap=self.settings.amplitude_cap)
                existing.amplitude, existing.phase = amplitude, merged_phase
                existing.updated_at, existing.sync_version = now, existing.sync_version + 1
                reinforced[existing.id] = existing
                results.append(StoreResult(existing, deduplicated=True))
                continue
            memory = Memory(
                id=uuid7(), content=p["content"], summary=summarise(p["content"]), vector=p["vector"],
                dim=int(p["vector"].shape[0]), model_version=p["model_version"], content_hash=p["hash"],
                amplitude=p["amplitude"], phase=p["phase"], stance=p["stance"], category=p["category"],
                tags=p["tags"], origin_agent=self.agent_id, created_at=now, updated_at=now)
            memory.signature = self.identity.sign(memory.claim())
            by_hash[p["hash"]] = memory
            new_rows.append(memory.to_row())
            results.append(StoreResult(memory))
        with self.repo.transaction():
            self.repo.insert("memories", new_rows)
            for memory in reinforced.values():
                self.repo.update("memories", {"amplitude": memory.amplitude, "phase": memory.phase,
                                              "updated_at": memory.updated_at,
                                              "sync_version": memory.sync_version}, {"id": memory.id})
            head = self.repo.commit(self._store_message(results), author=self.agent_id)
        for r in results:
            r.commit = head
        self.after_commit()
        return results

    def _prepare(self, item: MemoryInput, position: int) -> dict:
        content = validate_content(item.content)
        phase, stance = phase_mod.resolve(content, estimator=estimate_stance, phase=item.phase, stance=item.stance)
        vector = None
        model_version = self.embedder_version
        if item.vector is not None:
            vector = validate_vector(item.vector, self.dim)
        return {"content": content, "hash": content_hash(content), "category": validate_category(item.category),
                "tags": validate_tags(item.tags), "amplitude": validate_amplitude(item.importance),
                "phase": phase, "stance": stance, "vector": vector, "model_version": model_version}

    @property
    def embedder_version(self) -> str:
        return self._embedder.model_version if self._embedder else self._own_row()["model_version"]

    @property
    def dim(self) -> int:
        if self._embedder is not None:
            return self._embedder.dim
        return int(json.loads(self._own_row()["capabilities"]).get("dim", 384))

    def _own_row(self) -> dict:
        rows = self.repo.select("agents", {"agent_id": self.agent_id})
        if not rows:
            raise StorageError(f"the agents table has no row for {self.agent_id}")
        return rows[0]

    def _existing_by_hash(self, hashes: set[str]) -> dict[str, Memory]:
        rows = self.repo.select_in("memories", "content_hash", sorted(hashes))
        out: dict[str, Memory] = {}
        for row in rows:
            if row["origin_agent"] == self.agent_id and not row["retracted"] and row["absorbed_into"] is None:
                out[row["content_hash"]] = Memory.from_row(row)
        return out

    @staticmethod
    def _store_message(results: Sequence[StoreResult]) -> str:
        if len(results) == 1:
            r = results[0]
            verb = "reinforce" if r.deduplicated else "store"
            return f"{verb} {r.memory.id}: {r.memory.summary[:72]}"
        added = sum(1 for r in results if not r.deduplicated)
        return f"store {added} memories, reinforce {len(results) - added}"

    def after_commit(self) -> None:
        """Every gc_every commits, give the file back its churn (doltlite appends chunks)."""
        count = int(self._local("commits_since_gc") or 0) + 1
        if count >= self.settings.gc_every:
            self.repo.gc()
            count = 0
        self._set_local("commits_since_gc", str(count))

    def _local(self, key: str) -> str | None:
        rows = self.repo.select("local_state", {"name": key})
        return rows[0]["value"] if rows else None

    def _set_local(self, key: str, value: str) -> None:
        self.repo.upsert("local_state", [{"name": key, "value": value}], key=["name"])

    # --- read --------------------------------------------------------------
    def get(self, memory_id: str, *, as_of: str | None = None) -> Memory:
        rows = self.repo.select("memories", {"id": memory_id}, as_of=as_of)
        if not rows:
            raise NotFound("memory", f"no memory with id {memory_id!r}")
        return Memory.from_row(rows[0])

    def show(self, memory_id: str) -> dict:
        memory = self.get(memory_id)
        links = self.repo.select("skip_links", {"source_id": memory_id}) + \
            self.repo.select("skip_links", {"target_id": memory_id})
        access = self.repo.select("local_access", {"memory_id": memory_id})
        count = (access[0]["count"] if access else 0) + self._pending_access.get(memory_id, 0)
        return {**memory.to_dict(), "links": links, "access_count": count}

    def resolve_as_of(self, ref: str) -> str:
        """A commit, branch, tag or timestamp -> a commit hash on this agent's history."""
        try:
            return self.repo.resolve(ref)
        except NotFound:
            pass
        try:
            when = parse_time(ref)
        except BadInput:
            raise NotFound("as-of", f"{ref!r} is neither a commit, a branch nor a timestamp") from None
        for commit in self.repo.log(self.branch):
            committed = parse_time(commit.date.replace(" ", "T"))
            if committed <= when:
                return commit.hash
        raise NotFound("as-of", f"{ref} is before this agent's first commit")

    def trust_scores(self, *, as_of: str | None = None) -> dict[str, float]:
        scores = {r["agent_id"]: float(r["trust_score"])
                  for r in self.repo.select("agents", columns=("agent_id", "trust_score"), as_of=as_of)}
        scores[self.agent_id] = 1.0  # an agent's own memories have trust 1
        return scores

    def index(self) -> VectorIndex:
        self.prepare()
        return self._index

    def prepare(self) -> dict:
        """Bring the index, and the judge's analyses of each text it takes in, to the head.
        Recall and pull do it when they need to; doing it ahead of a sync window leaves
        the window to what arrives."""
        if self._index is None:
            self._index = VectorIndex(self.folder, dim=self.dim, model_version=self.embedder_version)
        analysed = 0

        def analyse(rows: Sequence[dict]) -> None:
            nonlocal analysed
            with gc_paused():
                analysed += analyses.prepare(self.repo, self.judge, [r["content"] for r in rows])

        how = self._index.ensure(self.repo, self.repo.head(self.branch), on_indexed=analyse)
        return {"index": how, "count": len(self._index), "analysed": analysed}

    def recall(self, query: str, *, k: int = 5, as_of: str | None = None, include_faded: bool = False,
               vector: Any = None, now: datetime | None = None) -> list[RecallHit]:
        """Memories ranked by cos^2 * amplitude * trust * recency * boost(access)."""
        if not isinstance(k, int) or k < 1:
            raise BadInput("k", f"must be a positive whole number, got {k!r}")
        query_vector = (validate_vector(vector, self.dim) if vector is not None
                        else validate_vector(self.embedder.embed([validate_content(query, "query")])[0], self.dim))
        now = now or utcnow()
        if as_of is not None:
            commit = self.resolve_as_of(as_of)
            rows = {r["id"]: r for r in self.repo.select("memories", as_of=commit)
                    if not r["retracted"] and r["absorbed_into"] is None and r["dim"] == self.dim}
            if not rows:
                return []
            ids = list(rows)
            sims = np.stack([blob_to_vector(rows[i]["vector"]) for i in ids]) @ query_vector
            origins = sorted({r["origin_agent"] for r in rows.values()})
            table = score_table([rows[i] for i in ids], {o: code for code, o in enumerate(origins)}.__getitem__)
            strength = strengths(table, origins, self.trust_scores(as_of=commit), now.timestamp(),
                                 self.settings.half_lives)
            scored = self._score(ids, sims, strength, include_faded)
            return self._hits(scored[:k], as_of=commit, rows=rows)
        index = self.index()
        boost_bound, trust_scores = self._boost_bound(), self.trust_scores()
        want = max(k * OVERFETCH, EF_SEARCH)  # the index searches EF_SEARCH deep anyway
        seen = np.zeros(index.label_count, dtype=bool)
        scored: list[tuple[float, float, float, int, str]] = []
        while True:
            labels, sims = index.search_labels(query_vector, want)
            last = float(sims[-1]) if len(sims) else 0.0
            fresh = ~seen[labels]
            seen[labels] = True
            labels, sims = labels[fresh], sims[fresh]
            # the index keeps what the score needs (amplitude, origin, age, category): no row is read
            strength = index.strengths_at(labels, trust_scores, now.timestamp(), self.settings.half_lives)
            # Each score is at most cos^2 * strength * boost bound: only candidates whose bound
            # can beat the k-th score so far have their access counts read.
            bounds = np.maximum(sims, 0.0) ** 2 * strength * boost_bound
            kth = scored[k - 1][0] if len(scored) >= k else -1.0
            chosen = np.flatnonzero(bounds >= kth)
            scored = sorted(scored + self._score(index.ids_of(labels[chosen]), sims[chosen], strength[chosen],
                                                 include_faded), key=lambda s: s[0], reverse=True)[:k]
            # What the index has not returned yet is at most as similar as its last candidate, so
            # widen the net until nothing beyond it can beat the k-th score: the ranking is exact.
            bound = max(last, 0.0) ** 2 * index.max_amplitude * boost_bound
            if want >= len(index) or (len(scored) >= k and scored[k - 1][0] >= bound):
                break
            want *= 4
        hits = self._hits(scored[:k])
        if hits:
            self._count_access([h.memory.id for h in hits], now)
        return hits

    def _score(self, ids: Sequence[str], sims: np.ndarray, strengths: np.ndarray, include_faded: bool
               ) -> list[tuple[float, float, float, int, str]]:
        """(score, similarity, strength, access count, id), best first:
        cos^2 * strength * boost(access), faded memories left out unless asked for."""
        table, pending = self._access_counts(), self._pending_access
        counts = np.array([table.get(mid, 0) + pending.get(mid, 0) for mid in ids], dtype=np.int64)
        scores = np.maximum(sims, 0.0) ** 2 * strengths * np.minimum(1 + BOOST_STEP * counts, BOOST_MAX)
        order = [int(i) for i in np.argsort(-scores, kind="stable")
                 if include_faded or strengths[i] >= self.settings.fade_threshold]
        return [(float(scores[i]), float(sims[i]), float(strengths[i]), int(counts[i]), ids[i]) for i in order]

    def _access_counts(self) -> dict[str, int]:
        """The recall counts in local_access, re-read at most every ACCESS_FLUSH_SECONDS: other
        processes' counts reach the table that late anyway (this one's own are added by callers)."""
        if self._access_table is None or time.monotonic() - self._access_read >= ACCESS_FLUSH_SECONDS:
            self._access_table = {r["memory_id"]: int(r["count"])
                                  for r in self.repo.select("local_access", columns=("memory_id", "count"))}
            self._access_read = time.monotonic()
        return self._access_table

    def _hits(self, scored: list[tuple[float, float, float, int, str]], *, as_of: str | None = None,
              rows: Mapping[str, dict] | None = None) -> list[RecallHit]:
        """Whole memories for the chosen few (scoring needed only the index's columns)."""
        if rows is None:
            rows = {r["id"]: r for r in self.repo.select_in("memories", "id", [s[4] for s in scored], as_of=as_of)}
        return [RecallHit(Memory.from_row(rows[mid]), score, similarity, strength, n)
                for score, similarity, strength, n, mid in scored]

    def _boost_bound(self) -> float:
        """The largest boost any memory has now: that of the most recalled one."""
        n = max(self._access_counts().values(), default=0) + max(self._pending_access.values(), default=0)
        return min(1 + BOOST_STEP * n, BOOST_MAX)

    def _count_access(self, ids: Sequence[str], now: datetime) -> None:
        """Hebbian counters live in an ignored table: recall never makes a commit.

        They are buffered and written in one transaction every ACCESS_FLUSH_SECONDS and on
        close, so a recall waits for no fsync; a crash loses at most those seconds of counts.
        """
        for memory_id in ids:
            self._pending_access[memory_id] = self._pending_access.get(memory_id, 0) + 1
        self._access_stamp = iso(now)
        if time.monotonic() - self._access_flushed >= ACCESS_FLUSH_SECONDS:
            self.flush_access()

    def flush_access(self) -> None:
        """Write the buffered access counts (added to what other processes wrote meanwhile)."""
        pending, self._pending_access = self._pending_access, {}
        self._access_flushed = time.monotonic()
        if not pending:
            return
        with self.repo.transaction():
            existing = {r["memory_id"]: r["count"] for r in self.repo.select_in("local_access", "memory_id", list(pending))}
            written = {i: existing.get(i, 0) + n for i, n in pending.items()}
            self.repo.upsert("local_access", [{"memory_id": i, "count": count, "last_access": self._access_stamp}
                                              for i, count in written.items()], key=["memory_id"])
        if self._access_table is not None:
            self._access_table.update(written)

    # --- forget, log, status --------------------------------------------------
    def forget(self, memory_id: str) -> dict:
        """Retract one of this agent's own memories (a signed, committed change; never a delete)."""
        memory = self.get(memory_id)
        if memory.origin_agent != self.agent_id:
            raise BadInput("memory", f"{memory_id} belongs to {memory.origin_agent}; only its origin can retract it")
        if memory.retracted:
            return {"id": memory_id, "retracted": True, "changed": False, "commit": None}
        memory.retracted = True
        memory.updated_at = iso(utcnow())
        memory.sync_version += 1
        memory.signature = self.identity.sign(memory.claim())
        with self.repo.transaction():
            self.repo.update("memories", {"retracted": 1, "updated_at": memory.updated_at,
                                          "sync_version": memory.sync_version, "signature": memory.signature},
                             {"id": memory_id})
            head = self.repo.commit(f"retract {memory_id}: {memory.summary[:72]}", author=self.agent_id)
        self.after_commit()
        return {"id": memory_id, "retracted": True, "changed": True, "commit": head}

    def log(self, n: int | None = 20) -> list[Commit]:
        if n is not None and (not isinstance(n, int) or n < 1):
            raise BadInput("n", f"must be a positive whole number, got {n!r}")
        return self.repo.log(self.branch, limit=n)

    def status(self) -> dict:
        head = self.repo.head(self.branch)
        meta_path = self.folder / "index.json"
        index_state: dict[str, Any] = {"built": meta_path.exists()}
        if meta_path.exists():
            meta = json.loads(meta_path.read_text())
            index_state.update(head=meta["head"], count=meta["count"], current=meta["head"] == head)
        counts = {
            "memories": self.repo.count("memories"),
            "own": self.repo.count("memories", {"origin_agent": self.agent_id}),
            "retracted": self.repo.count("memories", {"retracted": 1}),
            "disputed": self.repo.count("memories", {"disputed": 1}),
            "absorbed": self.repo.count("memories") - self.repo.count("memories", {"absorbed_into": None}),
            "peers": self.repo.count("agents") - 1,
            "open_cases": self.repo.count("quarantine", {"status": ["pending", "escalated"]}),
        }
        return {"agent": self.agent_id, "home": str(self.home.root), **self.location.describe(),
                "branch": self.branch, "head": head,
                "schema_version": self.repo.schema_version(), "counts": counts, "index": index_state,
                "remotes": self.repo.remotes()}


    # --- the collective: remotes, push, pull, quarantine, trust ------------------
    def comparator(self) -> merge.Comparator:
        """How this agent tells agreement from contradiction when memories meet (in a
        pull and in a dream's detect stage): the pairwise judge, turned by explicit stances.
        Agent.open(..., judge=...) plugs in another judge (an NLI model, an LLM callback)."""
        return merge.JudgeComparator(self.judge)

    @property
    def judge(self) -> Judge:
        """The pairwise judge this agent uses (Agent.open(..., judge=...), else the rule judge)."""
        return self._judge or default_judge()

    def add_remote(self, name: str, url: str) -> dict:
        return exchange.add_remote(self, name, url)

    def remotes(self) -> dict[str, str]:
        return self.repo.remotes()

    def push(self, remote: str | None = None) -> dict:
        return exchange.push(self, remote)

    def pull(self, remote: str | None = None, *, peers: Sequence[str] = (), dry_run: bool = False) -> dict:
        return exchange.pull(self, remote, peers=peers, dry_run=dry_run)

    def cases(self, status: str | None = None) -> list[dict]:
        if status is not None and status not in quarantine.STATUSES:
            raise BadInput("status", f"must be one of {', '.join(quarantine.STATUSES)}, got {status!r}")
        rows = self.repo.select("quarantine", {"status": status} if status else None, order_by="created_at")
        return [_case_dict(r) for r in rows]

    def case(self, case_id: str) -> dict:
        rows = self.repo.select("quarantine", {"id": case_id})
        if not rows:
            raise NotFound("case", f"no quarantine case {case_id!r}")
        case = _case_dict(rows[0])
        scores = self.trust_scores()
        for side in ("a", "b"):
            memory_id = case[f"memory_id_{side}"]
            found = self.repo.select("memories", {"id": memory_id})
            if not found and quarantine.QUARANTINE_BRANCH in self.repo.branches():
                found = self.repo.select("memories", {"id": memory_id}, as_of=quarantine.QUARANTINE_BRANCH)
            origin = case[f"agent_{side}"]
            case[side] = {**(Memory.from_row(found[0]).to_dict() if found else {"id": memory_id}),
                          "trust": scores.get(origin, trust.START)}
        case["history"] = [c.to_dict() for c in self.repo.log(self.branch, limit=200)
                           if case_id in c.message or case["memory_id_a"] in c.message
                           or case["memory_id_b"] in c.message]
        return case

    def resolve_case(self, case_id: str, *, keep: str, note: str | None = None, by: str | None = None,
                     remote: str | None = None) -> dict:
        """A person's verdict: recorded with who and why, flags and trust follow, then pushed."""
        quarantine.validate_keep(keep)
        rows = self.repo.select("quarantine", {"id": case_id})
        if not rows:
            raise NotFound("case", f"no quarantine case {case_id!r}")
        now = iso(utcnow())
        resolved = quarantine.resolution(rows[0], keep=keep, note=note, by=by or "reviewer",
                                         agent=self.agent_id, at=now)
        remote_name = None
        if self.repo.remotes():
            remote_name = exchange.resolve_remote(self, remote)
        with self.repo.transaction():
            self.repo.upsert("quarantine", [resolved], key=["id"])
            self.apply_resolution_effects(resolved)
            head = self.repo.commit(f"quarantine: resolve {case_id} keep {keep}", author=self.agent_id)
        self.after_commit()
        shared = exchange.share_cases(self, remote_name) if remote_name else {"pushed": False}
        return {**_case_dict(resolved), "commit": head, "quarantine": shared}

    def apply_resolution_effects(self, case: dict) -> None:
        """Flags and trust after a verdict; the caller holds the transaction."""
        effect = quarantine.effects(case)
        decision = json.loads(case["resolution"])
        now = iso(utcnow())
        for memory_id, disputed in effect.disputed.items():
            self.repo.update("memories", {"disputed": int(disputed), "updated_at": now}, {"id": memory_id})
        if effect.consensus:
            self.repo.upsert("skip_links", [
                {"source_id": case["memory_id_a"], "target_id": case["memory_id_b"], "link_type": "consensus",
                 "weight": 1.0, "created_by": self.agent_id, "created_at": now}],
                key=["source_id", "target_id", "link_type"])
        scores = self.trust_scores()
        for agent_id, reason in effect.verdicts:
            if agent_id == self.agent_id or not self.repo.select("agents", {"agent_id": agent_id}):
                continue
            change = trust.change(agent_id, scores[agent_id], reason, holder=self.agent_id)
            scores[agent_id] = change.score_after
            self.repo.insert("trust_events", [{
                "id": uuid7(), "agent_id": agent_id, "delta": change.delta, "score_after": change.score_after,
                "reason": reason, "evidence": json.dumps({"case_id": case["id"], "memory_ids":
                                                          [case["memory_id_a"], case["memory_id_b"]]}),
                "verifier": decision.get("by", "reviewer"), "created_at": now}])
            self.repo.update("agents", {"trust_score": change.score_after}, {"agent_id": agent_id})

    def peers(self) -> list[dict]:
        counts: dict[str, int] = {}
        for row in self.repo.select("memories", columns=("origin_agent",)):
            counts[row["origin_agent"]] = counts.get(row["origin_agent"], 0) + 1
        out = []
        for row in self.repo.select("agents", order_by="agent_id"):
            if row["agent_id"] == self.agent_id:
                continue
            out.append({"agent": row["agent_id"], "trust": round(float(row["trust_score"]), 4),
                        "last_sync": row["last_sync"], "last_synced_commit": row["last_synced_commit"],
                        "key_fingerprint": fingerprint(row["public_key"]),
                        "memories": counts.get(row["agent_id"], 0)})
        return out

    def trust_ledger(self, agent_id: str) -> dict:
        rows = self.repo.select("agents", {"agent_id": agent_id})
        if not rows:
            raise NotFound("agent", f"{agent_id} is not a known peer")
        events = self.repo.select("trust_events", {"agent_id": agent_id}, order_by="created_at")
        for e in events:
            e["evidence"] = json.loads(e["evidence"])
        return {"agent": agent_id, "trust": float(rows[0]["trust_score"]), "events": events}


def _case_dict(row: dict) -> dict:
    out = dict(row)
    out["resolution"] = json.loads(row["resolution"]) if row.get("resolution") else None
    return out


class _LazyModel:
    """Names the default model at init without loading it."""

    model_version = DEFAULT_MODEL_VERSION
    dim = DEFAULT_DIM
