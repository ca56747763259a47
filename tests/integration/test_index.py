"""The ANN index: kept at the head by diffs, rebuilt when lost or of another model, its amplitudes
kept for recall's bounds, and recovered after an interrupted save."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from collective import open_agent
from collective.agent import Agent, MemoryInput
from collective.index import VectorIndex
from collective.index.files import LAYOUT
from collective.index.hnsw import SCAN_SHARE
from collective.model import validate_vector

# The storage behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def head(agent: Agent) -> str:
    return agent.log(1)[0].hash


def index_files(agent: Agent):
    return [agent.folder / n for n in ("index.usearch", "index-ids.npy", "index-scores.npy", "index-vectors.npy", "index.json")]

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
    with open_agent("earth-1", home=home, embedder=hash_embedder) as a:
        new = a.store("the water recycler filter is clogged").memory.id
        assert a.recall("water recycler filter", k=1)[0].memory.id == new
        status = a.status()
        assert status["index"] == {"built": True, "head": head(a), "count": 2, "current": True}


def similar_memories(agent: Agent, count: int) -> np.ndarray:
    """`count` stored memories whose vectors lie close together; returns their centre."""
    rng = np.random.default_rng(5)
    centre = validate_vector(rng.normal(size=agent.embedder.dim), agent.embedder.dim)
    vectors = (centre + rng.normal(scale=0.05, size=(count, agent.embedder.dim))).astype(np.float32)
    agent.store_many([MemoryInput(f"reading {n} of the dust level", vector=v) for n, v in enumerate(vectors)])
    return centre

def by_cosine(agent: Agent, centre: np.ndarray) -> list[tuple[str, float]]:
    live = [r for r in agent.repo.select("memories") if not r["retracted"]]
    return sorted(((r["id"], float(np.frombuffer(r["vector"], dtype="<f4") @ centre)) for r in live),
                  key=lambda pair: -pair[1])

def test_index_search_for_a_large_share_of_it_is_exact_and_leaves_out_removed(agent):
    centre = similar_memories(agent, 200)
    for row in agent.repo.select("memories", columns=("id",))[:10]:
        agent.forget(row["id"])
    index = agent.index()
    exact = by_cosine(agent, centre)
    for k in (len(exact) // SCAN_SHARE, len(exact), len(exact) + 1, 10_000):
        found = index.search(centre, k)
        assert [mid for mid, _ in found] == [mid for mid, _ in exact[:k]], k
        assert [s for _, s in found] == pytest.approx([s for _, s in exact[:k]], abs=1e-5)

class _ShortSighted:
    """A graph that reaches only one node from any query."""

    def __init__(self, index):
        self._index = index

    def __getattr__(self, name):
        return getattr(self._index, name)

    def search(self, queries, count, **kwargs):
        found = self._index.search(queries, count, **kwargs)
        if not hasattr(found, "counts"):  # one query's matches
            return type(found)(found.keys[:1], found.distances[:1])
        return type(found)(found.keys, found.distances, np.minimum(found.counts, 1))  # rows stay k wide

class _Failing(_ShortSighted):
    def search(self, queries, count, **kwargs):
        raise RuntimeError("Index seems to be corrupted or unsupported")

def test_index_search_falls_back_to_a_scan_only_when_the_graph_reaches_too_few(agent):
    centre = similar_memories(agent, 200)
    index = agent.index()
    graph = index._index
    index._index = _ShortSighted(graph)
    many = np.stack([centre, -centre])  # the library hands a single query's matches differently
    for found, query in [(index.search(centre, 3), centre), *zip(index.search_many(many, 3), many)]:
        exact = by_cosine(agent, query)[:3]
        assert [mid for mid, _ in found] == [mid for mid, _ in exact]
        assert [s for _, s in found] == pytest.approx([s for _, s in exact], abs=1e-5)
    index._index = _Failing(graph)
    with pytest.raises(RuntimeError, match="corrupted"):
        index.search(centre, 3)

def test_index_without_its_vectors_is_rebuilt(home, hash_embedder, agent):
    agent.store("the coolant pump is safe")
    agent.recall("coolant pump", k=1)
    model, dim = hash_embedder.model_version, hash_embedder.dim
    assert VectorIndex(agent.folder, dim=dim, model_version=model).load()
    (agent.folder / "index-vectors.npy").unlink()
    assert not VectorIndex(agent.folder, dim=dim, model_version=model).load()
    assert agent.recall("coolant pump", k=1)[0].memory.content == "the coolant pump is safe"


BROKEN_SIDECARS = [b'{"head": "abc", "dim": 6', b"[1, 2]", b"\xff\xfe", b'{"head": 5}', b"null",
                   b'{"head": null, "dim": 64, "model_version": "hash-bow-v1", "capacity": -1, "count": 1, "deleted": [],'
                   b' "origins": [], "layout": "%s"}' % LAYOUT.encode(),
                   b'{"head": null, "dim": 64, "model_version": "hash-bow-v1", "capacity": "big", "count": 1,'
                   b' "deleted": [], "origins": [], "layout": "%s"}' % LAYOUT.encode()]


@pytest.mark.parametrize("sidecar", BROKEN_SIDECARS, ids=range(len(BROKEN_SIDECARS)))
def test_a_broken_index_sidecar_is_a_stale_index_rebuilt(home, hash_embedder, agent, sidecar):
    pump = agent.store("the coolant pump is safe").memory.id
    agent.recall("coolant", k=1)
    agent.close()
    (home / "agents" / "earth-1" / "index.json").write_bytes(sidecar)
    with open_agent("earth-1", home=home, embedder=hash_embedder) as a:
        assert a.status()["index"] == {"built": False}
        assert a.prepare()["index"] == "rebuilt"
        assert a.recall("coolant pump", k=1)[0].memory.id == pump


def test_an_index_saved_by_hnswlib_is_rebuilt(home, hash_embedder, agent):
    pump = agent.store("the coolant pump is safe").memory.id
    agent.recall("coolant", k=1)
    agent.close()
    folder = home / "agents" / "earth-1"
    (folder / "index.usearch").unlink()
    (folder / "index.hnsw").write_bytes(b"\0" * 4096)  # an earlier version's graph and its index.json
    (folder / "index.json").write_text(json.dumps({"head": None, "dim": 64, "model_version": "hash-bow-v1",
                                                   "capacity": 1024, "count": 1, "deleted": [], "origins": []}))
    with open_agent("earth-1", home=home, embedder=hash_embedder) as a:
        assert a.status()["index"] == {"built": False}
        assert a.prepare()["index"] == "rebuilt"
        assert not (folder / "index.hnsw").exists() and (folder / "index.usearch").exists()
        assert a.recall("coolant pump", k=1)[0].memory.id == pump
