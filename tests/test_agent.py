"""The porcelain against real doltlite files: store, dedup, recall, as-of, forget, index."""

from __future__ import annotations

import math
import time
from datetime import timedelta

import numpy as np
import pytest

from collective.core import trust, wave
from collective.agent import Agent, MemoryInput
from collective.config import Home
from collective.errors import AgentExists, BadInput, NotFound
from collective.index import VectorIndex
from collective.store.base import migrations
from collective.model import Memory, content_hash, iso, parse_time, utcnow, uuid7, validate_vector

# The storage behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def head(agent: Agent) -> str:
    return agent.repo.head(agent.branch)


def commit_count(agent: Agent) -> int:
    return len(agent.repo.log(agent.branch))


def recalled_ids(agent: Agent, query: str, **kwargs) -> list[str]:
    return [h.memory.id for h in agent.recall(query, **kwargs)]


def foreign_memory(agent: Agent, origin: str, content: str, *, vector=None, amplitude: float = 0.5,
                   category: str = "knowledge") -> Memory:
    """A memory as it would arrive from a peer: another origin, committed on our branch."""
    vector = agent.embedder.embed([content])[0] if vector is None else validate_vector(vector, agent.dim)
    now = iso(utcnow())
    memory = Memory(id=uuid7(), content=content, summary=content, vector=vector, dim=len(vector),
                    model_version=agent.embedder.model_version, content_hash=content_hash(content),
                    amplitude=amplitude, phase=0.0, category=category, origin_agent=origin,
                    created_at=now, updated_at=now, signature="from-peer")
    with agent.repo.transaction():
        agent.repo.insert("memories", [memory.to_row()])
        agent.repo.commit(f"pull {origin}", author=agent.agent_id)
    return memory


# --- init ------------------------------------------------------------------------
def test_init_creates_branches_key_and_own_row(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        branches = agent.repo.branches()
        assert set(branches) == {"main", "earth-1/working"}
        assert agent.repo.active_branch() == "earth-1/working"
        key_file = home / "agents" / "earth-1" / "ed25519.pem"
        assert key_file.stat().st_mode & 0o777 == 0o600
        row = agent.repo.select("agents", {"agent_id": "earth-1"})[0]
        assert row["public_key"] == agent.identity.public_key and len(row["public_key"]) == 44
        assert row["branch_name"] == "earth-1/working" and row["model_version"] == "hash-bow-v1"
        assert agent.repo.schema_version() == migrations(agent.repo.dialect)[-1][0]
        first_commit = agent.repo.log("main")[0]
        assert first_commit.author == "earth-1" and first_commit.message == "init agent earth-1"
        if agent.location.engine == "doltlite":
            assert (home / "agents" / "earth-1" / "memory.db").read_bytes()[:4] == b"CTLD"
    assert not (home / "agents" / "earth-1" / "memory.db.init").exists()
    assert Home.at(home).config == {"agent": "earth-1"}


def test_init_twice_fails_unless_exist_ok(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        key, first_head = agent.identity.public_key, head(agent)
    key_bytes = (home / "agents" / "earth-1" / "ed25519.pem").read_bytes()
    with pytest.raises(AgentExists) as e:
        Agent.init("earth-1", home=home, embedder=hash_embedder)
    assert e.value.field == "agent"
    with Agent.init("earth-1", home=home, embedder=hash_embedder, exist_ok=True) as again:
        assert again.identity.public_key == key and head(again) == first_head
    assert (home / "agents" / "earth-1" / "ed25519.pem").read_bytes() == key_bytes


def test_open_unknown_agent_is_not_found(home, agent):
    with pytest.raises(NotFound) as e:
        Agent.open("mars-9", home=home)
    assert e.value.field == "agent"
    assert not (home / "agents" / "mars-9").exists()


# --- store --------------------------------------------------------------------------
def test_store_is_a_commit_authored_by_the_agent(agent):
    before = head(agent)
    result = agent.store("the coolant pump is safe", tags=["pump"], category="experience")
    after = head(agent)
    assert after != before and result.commit == after
    last = agent.repo.log(agent.branch, limit=1)[0]
    assert (last.author, last.email, last.message) == (
        "earth-1", "earth-1@cmem.local", f"store {result.memory.id}: the coolant pump is safe")
    stored = agent.repo.select("memories", {"id": result.memory.id}, as_of=after)[0]
    assert stored["content"] == "the coolant pump is safe" and stored["category"] == "experience"
    assert agent.repo.count("memories", as_of=before) == 0
    assert agent.repo.query("SELECT * FROM dolt_status") == []


def test_stored_memory_is_signed_by_the_agent(agent):
    from collective.identity import verify
    memory = agent.get(agent.store("signed fact").memory.id)
    assert verify(agent.identity.public_key, memory.claim(), memory.signature)
    memory.tags = ["tampered"]
    assert not verify(agent.identity.public_key, memory.claim(), memory.signature)


def test_dedup_reinforces_the_existing_memory(agent):
    first = agent.store("The coolant pump is safe")
    second = agent.store("  the COOLANT pump   is safe ")
    third = agent.store("the coolant pump is safe", importance=1.0)
    assert second.deduplicated and third.deduplicated and not first.deduplicated
    assert first.memory.id == second.memory.id == third.memory.id
    assert first.memory.amplitude == 0.5
    assert second.memory.amplitude == pytest.approx(1.0)
    assert third.memory.amplitude == pytest.approx(2.0)  # 1.0 + 1.0, at the cap
    assert agent.repo.count("memories") == 1
    stored = agent.get(first.memory.id)
    assert stored.amplitude == pytest.approx(2.0) and stored.sync_version == 3
    assert stored.content == "The coolant pump is safe"  # the original wording stays
    messages = [c.message for c in agent.log(3)]
    assert messages[0].startswith(f"reinforce {first.memory.id}") and messages[2].startswith("store ")


def test_opposite_stance_is_not_a_duplicate(agent):
    first = agent.store("the coolant pump is safe")
    denied = agent.store("the coolant pump is safe", stance="deny")
    assert not denied.deduplicated and denied.memory.id != first.memory.id
    assert denied.memory.phase == pytest.approx(math.pi) and denied.memory.stance == "deny"
    assert agent.repo.count("memories") == 2


def test_store_many_is_one_commit(agent):
    before, commits = head(agent), commit_count(agent)
    results = agent.store_many([MemoryInput(f"fact number {n}", tags=[f"t{n}"]) for n in range(7)]
                               + [{"content": "fact number 3"}])  # the last one reinforces within the batch
    assert commit_count(agent) == commits + 1
    assert {r.commit for r in results} == {head(agent)}
    assert agent.repo.count("memories") == 7
    assert results[-1].deduplicated and results[-1].memory.id == results[3].memory.id
    assert agent.repo.log(agent.branch)[1].hash == before
    assert agent.log(1)[0].message == "store 7 memories, reinforce 1"
    assert agent.store_many([]) == [] and commit_count(agent) == commits + 1


@pytest.mark.parametrize("vector, problem", [
    (np.ones(10), "expected 64 dimensions"),
    (np.full(64, np.nan), "NaN"),
    (np.r_[np.ones(63), np.inf], "NaN or infinity"),
    (np.zeros(64), "all zeros"),
])
def test_bad_vectors_are_refused_before_writing(agent, vector, problem):
    agent.store("something already there")
    before, rows = head(agent), agent.repo.count("memories")
    with pytest.raises(BadInput) as e:
        agent.store("a new memory", vector=vector)
    assert e.value.field == "vector" and problem in e.value.problem
    with pytest.raises(BadInput):  # one bad item spoils the whole batch
        agent.store_many([MemoryInput("fine one"), MemoryInput("bad one", vector=vector)])
    assert head(agent) == before and agent.repo.count("memories") == rows
    assert agent.repo.query("SELECT * FROM dolt_status") == []


@pytest.mark.parametrize("kwargs, field", [
    ({"content": ""}, "content"), ({"content": " \n\t "}, "content"), ({"content": "x" * (32 * 1024 + 1)}, "content"),
    ({"content": "x", "category": "gossip"}, "category"), ({"content": "x", "importance": 0}, "importance"),
    ({"content": "x", "importance": 1.5}, "importance"), ({"content": "x", "importance": -1}, "importance"),
    ({"content": "x", "importance": "abc"}, "importance"), ({"content": "x", "phase": float("nan")}, "phase"),
    ({"content": "x", "phase": "inf"}, "phase"), ({"content": "x", "stance": "maybe"}, "stance"),
    ({"content": "x", "tags": [""]}, "tag"),
])
def test_bad_input_through_the_api_writes_nothing(agent, kwargs, field):
    before = head(agent)
    with pytest.raises(BadInput) as e:
        agent.store(**kwargs)
    assert e.value.field == field
    assert head(agent) == before and agent.repo.count("memories") == 0


def test_content_at_the_size_limit_is_accepted(agent):
    text = "é" * (16 * 1024)  # 32 KiB of UTF-8 exactly
    assert agent.store(text).memory.content == text


# --- recall ------------------------------------------------------------------------------
def test_recall_makes_no_commit_but_counts_access(agent):
    stored = agent.store("the coolant pump is safe")
    agent.store("the greenhouse lights run on a timer")
    before, commits = head(agent), commit_count(agent)
    hits = agent.recall("coolant pump", k=1)
    assert [h.memory.id for h in hits] == [stored.memory.id]
    assert hits[0].access_count == 0
    again = agent.recall("coolant pump", k=1)
    assert again[0].access_count == 1 and again[0].score > hits[0].score  # boost(1) = 1.05
    assert again[0].score == pytest.approx(hits[0].score * 1.05)
    assert head(agent) == before and commit_count(agent) == commits
    assert agent.repo.query("SELECT * FROM dolt_status") == []
    assert agent.show(stored.memory.id)["access_count"] == 2
    agent.flush_access()  # counts are buffered (no fsync per recall) and written here or on close
    assert agent.repo.select("local_access", {"memory_id": stored.memory.id})[0]["count"] == 2
    assert agent.show(stored.memory.id)["access_count"] == 2
    assert head(agent) == before and agent.repo.query("SELECT * FROM dolt_status") == []


def test_buffered_access_counts_add_up_across_agents(home, hash_embedder, agent):
    stored = agent.store("the coolant pump is safe").memory.id
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as other:
        other.recall("coolant pump", k=1)
        other.recall("coolant pump", k=1)
        agent.recall("coolant pump", k=1)
        agent.flush_access()
    assert agent.show(stored)["access_count"] == 3
    assert agent.repo.select("local_access", {"memory_id": stored})[0]["count"] == 3


def test_access_counts_survive_reopen_and_are_never_committed(home, hash_embedder, agent):
    stored = agent.store("the coolant pump is safe")
    agent.recall("coolant pump", k=1)
    agent.store("another fact")  # commit -A must not pick up the local tables
    agent.close()
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as again:
        assert again.show(stored.memory.id)["access_count"] == 1
        p = again.repo.param
        tables = {r["to_table_name"] for r in again.repo.query(
            f"SELECT to_table_name FROM dolt_diff_summary({p}, {p})", ("main", again.branch))}
        assert tables == {"memories"}
        assert again.repo.query("SELECT * FROM dolt_status") == []


def test_recall_score_is_the_documented_product(agent):
    agent.store("alpha beta gamma", importance=0.8)
    hit = agent.recall("alpha beta gamma", k=1)[0]
    assert hit.similarity == pytest.approx(1.0, abs=1e-5)
    assert hit.strength == pytest.approx(0.8) and hit.score == pytest.approx(0.8, abs=1e-5)


def test_recall_validates_its_input(agent):
    agent.store("something")
    for kwargs, field in [({"query": ""}, "query"), ({"query": "x", "k": 0}, "k"),
                          ({"query": "x", "vector": np.ones(3)}, "vector"),
                          ({"query": "x", "vector": np.full(64, np.inf)}, "vector")]:
        with pytest.raises(BadInput) as e:
            agent.recall(**kwargs)
        assert e.value.field == field


def test_as_of_commit_branch_and_timestamp(agent):
    old = agent.store("the habitat door is sealed").memory.id
    old_head = head(agent)
    agent.repo.create_branch("before-rover", start=old_head)
    time.sleep(1.1)  # dolt_log dates have whole seconds
    moment = utcnow()
    time.sleep(1.1)
    new = agent.store("the rover battery is charged").memory.id
    assert set(recalled_ids(agent, "door sealed rover battery", k=5)) == {old, new}
    for ref in (old_head, "before-rover", iso(moment), moment.isoformat()):
        assert recalled_ids(agent, "door sealed rover battery", k=5, as_of=ref) == [old], ref
    assert recalled_ids(agent, "door sealed rover battery", k=5, as_of="main") == []
    assert agent.get(new, as_of=None).id == new
    with pytest.raises(NotFound):
        agent.get(new, as_of=old_head)


@pytest.mark.parametrize("ref", ["no-such-branch", "0" * 32, "2001-01-01T00:00:00Z", "x'; drop table memories; --"])
def test_as_of_unknown_ref_is_not_found(agent, ref):
    agent.store("the habitat door is sealed")
    before = head(agent)
    with pytest.raises(NotFound) as e:
        agent.recall("door", as_of=ref)
    assert e.value.field in ("as-of", "ref")
    assert head(agent) == before and agent.repo.count("memories") == 1


# --- forget ----------------------------------------------------------------------------------
def test_forget_retracts_but_keeps_history(agent):
    keep = agent.store("the greenhouse lights run on a timer").memory.id
    gone = agent.store("the coolant pump is safe").memory.id
    before = head(agent)
    result = agent.forget(gone)
    assert result == {"id": gone, "retracted": True, "changed": True, "commit": head(agent)}
    assert head(agent) != before and agent.log(1)[0].message.startswith(f"retract {gone}")
    assert recalled_ids(agent, "coolant pump greenhouse", k=5) == [keep]
    assert gone in recalled_ids(agent, "coolant pump greenhouse", k=5, as_of=before)
    assert agent.get(gone).retracted is True and agent.repo.count("memories") == 2
    history = agent.repo.query("SELECT retracted FROM dolt_history_memories WHERE id = "
                               f"{agent.repo.param} ORDER BY commit_date", (gone,))
    assert sorted(r["retracted"] for r in history) == [0, 1]
    again_head = head(agent)
    assert agent.forget(gone) == {"id": gone, "retracted": True, "changed": False, "commit": None}
    assert head(agent) == again_head
    # storing the same words again makes a new memory: the retracted one is not reinforced
    fresh = agent.store("the coolant pump is safe")
    assert not fresh.deduplicated and fresh.memory.id != gone


def test_forget_refuses_another_agents_memory(agent):
    theirs = foreign_memory(agent, "mars-1", "dust storm expected on sol 200")
    before = head(agent)
    with pytest.raises(BadInput) as e:
        agent.forget(theirs.id)
    assert e.value.field == "memory" and "mars-1" in e.value.problem
    assert head(agent) == before and agent.get(theirs.id).retracted is False
    with pytest.raises(NotFound):
        agent.forget("01a00000-0000-7000-8000-000000000000")


# --- index --------------------------------------------------------------------------------------
def index_files(agent: Agent):
    return [agent.folder / n for n in ("index.hnsw", "index-ids.npy", "index-scores.npy", "index.json")]


def test_index_follows_the_head_incrementally_and_rebuilds_when_lost(agent):
    ids = [r.memory.id for r in agent.store_many([MemoryInput(f"observation {n} of the dust level") for n in range(20)])]
    agent.recall("dust level", k=3)  # builds and saves the index
    assert all(p.exists() for p in index_files(agent))
    model, dim = agent.embedder.model_version, agent.embedder.dim

    fresh = VectorIndex(agent.folder, dim=dim, model_version=model)
    assert fresh.ensure(agent.repo, head(agent)) == "current" and len(fresh) == 20

    added = agent.store("the airlock seal was replaced").memory.id
    agent.forget(ids[0])
    moved = VectorIndex(agent.folder, dim=dim, model_version=model)
    assert moved.ensure(agent.repo, head(agent)) == "updated"
    assert len(moved) == 20 and moved.head == head(agent)
    vector = agent.get(added).vector
    assert moved.search(vector, 1)[0][0] == added
    assert ids[0] not in {mid for mid, _ in moved.search(agent.get(ids[0]).vector, 21)}
    moved.save()

    for p in index_files(agent):
        p.unlink()
    rebuilt = VectorIndex(agent.folder, dim=dim, model_version=model)
    assert rebuilt.ensure(agent.repo, head(agent)) == "rebuilt"
    assert len(rebuilt) == 20 and all(p.exists() for p in index_files(agent))
    assert rebuilt.search(vector, 1)[0][0] == added

    other_model = VectorIndex(agent.folder, dim=dim, model_version="another-model")
    assert other_model.ensure(agent.repo, head(agent)) == "rebuilt" and len(other_model) == 0


def test_index_keeps_amplitudes_for_recall_bounds(home, hash_embedder, agent):
    m = agent.store("the coolant pump is safe").memory.id
    other = agent.store("the greenhouse lights run on a timer", importance=0.2).memory.id
    assert agent.index().amplitudes([m, other, "no-such-id"]) == [0.5, pytest.approx(0.2), math.inf]
    agent.store("the coolant pump is safe")  # reinforced: 0.5 -> 1.0, the index follows the diff
    index = agent.index()
    assert index.amplitudes([m]) == [1.0] and index.max_amplitude == 1.0
    agent.close()
    model, dim = hash_embedder.model_version, hash_embedder.dim
    loaded = VectorIndex(home / "agents" / "earth-1", dim=dim, model_version=model)
    assert loaded.load() and loaded.amplitudes([m, other]) == [1.0, pytest.approx(0.2)]
    (home / "agents" / "earth-1" / "index-scores.npy").unlink()  # an index without its scores is rebuilt
    assert not VectorIndex(home / "agents" / "earth-1", dim=dim, model_version=model).load()


def test_index_recovers_from_a_save_interrupted_before_its_meta(agent):
    ids = [r.memory.id for r in agent.store_many([MemoryInput(f"reading {n} of the dust level") for n in range(5)])]
    agent.recall("dust level", k=1)
    meta = agent.folder / "index.json"
    old_meta = meta.read_bytes()
    agent.forget(ids[0])
    added = agent.store("the airlock seal was replaced").memory.id
    agent.recall("airlock seal", k=1)  # saves the index at the new head
    meta.write_bytes(old_meta)  # as if the process died just before replacing index.json
    index = VectorIndex(agent.folder, dim=agent.embedder.dim, model_version=agent.embedder.model_version)
    assert index.ensure(agent.repo, head(agent)) == "updated"  # redoes the diff over newer files
    assert len(index) == 5 and index.search(agent.get(added).vector, 1)[0][0] == added
    assert ids[0] not in {mid for mid, _ in index.search(agent.get(ids[0]).vector, 5)}


def test_recall_sees_new_stores_through_the_persisted_index(home, hash_embedder, agent):
    agent.store("the coolant pump is safe")
    agent.recall("coolant", k=1)
    agent.close()
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as a:
        new = a.store("the water recycler filter is clogged").memory.id
        assert a.recall("water recycler filter", k=1)[0].memory.id == new
        status = a.status()
        assert status["index"] == {"built": True, "head": head(a), "count": 2, "current": True}


def test_recall_matches_the_exact_ranking_when_strength_outweighs_similarity(agent):
    """Many near-equal neighbours of different amplitude: the best scores lie beyond the first
    k * OVERFETCH by cosine, so recall has to widen until nothing further can outscore them."""
    rng = np.random.default_rng(7)
    centre = validate_vector(rng.normal(size=64), 64)
    vectors = centre + rng.normal(scale=0.02, size=(400, 64))
    vectors = np.vstack([vectors, rng.normal(size=(100, 64))]).astype(np.float32)  # and some far away
    amplitudes = rng.uniform(0.2, 1.0, size=500)
    agent.store_many([MemoryInput(f"memory {n}", importance=float(a), vector=v)
                      for n, (v, a) in enumerate(zip(vectors, amplitudes))])
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = unit @ centre
    exact = np.argsort(-(np.maximum(sims, 0) ** 2 * amplitudes))[:5]
    by_cosine = set(np.argsort(-sims)[:5 * 3])
    assert not set(exact) <= by_cosine  # the case is a hard one
    hits = agent.recall("ignored", k=5, vector=centre)
    assert [h.memory.content for h in hits] == [f"memory {n}" for n in exact]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].score == pytest.approx(sims[exact[0]] ** 2 * amplitudes[exact[0]], rel=1e-4)


def test_recall_ranks_by_trust_recency_and_access_exactly_as_a_full_scan(agent):
    """The index keeps each memory's amplitude, origin, age and category; recall's ranking from
    them equals the documented score computed from the rows, for every origin, category and age."""
    rng = np.random.default_rng(11)
    centre = validate_vector(rng.normal(size=64), 64)
    vectors = (centre + rng.normal(scale=0.05, size=(120, 64))).astype(np.float32)
    categories = ["knowledge", "experience", "skill", "social", "emotion"]
    items = [MemoryInput(f"memory {n}", category=categories[n % 5], importance=float(rng.uniform(0.2, 1.0)),
                         vector=v) for n, v in enumerate(vectors)]
    agent.store_many(items[:50])
    for n, item in enumerate(items[50:]):  # peers' memories near the query too, so trust decides
        foreign_memory(agent, "mars-1" if n % 2 else "venus-2", f"peer memory {n}", vector=item.vector,
                       amplitude=item.importance, category=item.category)
    with agent.repo.transaction():
        agent.repo.upsert("agents", [{"agent_id": a, "display_name": a, "public_key": "k", "trust_score": t,
                                      "branch_name": f"{a}/working", "model_version": "m", "capabilities": "{}",
                                      "created_at": iso(utcnow()), "last_synced_commit": None, "last_sync": None}
                                     for a, t in (("mars-1", 0.9), ("venus-2", 0.2))], key=["agent_id"])
        agent.repo.commit("peers and their trust", author=agent.agent_id)
    for _ in range(3):
        agent.recall("ignored", k=4, vector=vectors[5])  # access counts: boosts for a few
    later = utcnow() + timedelta(days=12)  # categories have decayed differently by now

    def expected(hit_ids):
        trust_of = agent.trust_scores()
        out = []
        for mid in hit_ids:
            m, shown = agent.get(mid), agent.show(mid)
            strength = m.amplitude * trust_of.get(m.origin_agent, 0.5) * trust.recency(
                parse_time(m.created_at), later, m.category, agent.settings.half_lives)
            boost = min(1 + 0.05 * shown["access_count"], 2.0)
            out.append(max(float(m.vector @ centre), 0.0) ** 2 * strength * boost)
        return out

    all_ids = [r["id"] for r in agent.repo.select("memories", columns=("id",))]
    full = sorted(zip(expected(all_ids), all_ids), reverse=True)
    hits = agent.recall("ignored", k=8, vector=centre, now=later, include_faded=True)
    assert [h.memory.id for h in hits] == [mid for _, mid in full[:8]]
    assert [h.score for h in hits] == pytest.approx([score for score, _ in full[:8]], rel=1e-4)
    assert {h.memory.origin_agent for h in hits} - {"earth-1"}  # trust took part
    past = agent.recall("ignored", k=8, vector=centre, now=later, include_faded=True, as_of=head(agent))
    assert [h.memory.id for h in past] == [h.memory.id for h in hits]


def test_status_counts(agent):
    a = agent.store("one").memory.id
    agent.store("two")
    agent.forget(a)
    foreign_memory(agent, "mars-1", "three")
    s = agent.status()
    assert s["counts"] == {"memories": 3, "own": 2, "retracted": 1, "disputed": 0, "absorbed": 0,
                           "peers": 0, "open_cases": 0}
    assert s["branch"] == "earth-1/working" and s["head"] == head(agent) and s["schema_version"] == migrations(agent.repo.dialect)[-1][0]


def test_phase_distance_of_stored_memories(agent):
    safe = agent.store("the coolant pump is safe").memory
    unsafe = agent.store("the coolant pump is not safe").memory
    paraphrase = agent.store("the coolant pump poses no danger").memory
    assert wave.phase_difference(safe.phase, unsafe.phase) == pytest.approx(math.pi)
    assert wave.phase_difference(safe.phase, paraphrase.phase) < wave.CONSTRUCTIVE_MAX
