"""The ANN index on its own (no database): any k, removed and re-added memories, how close the
graph comes to the exact scan, and its files."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from collective.index import VectorIndex
from collective.index import files, hnsw
from collective.model.memory import vector_to_blob

DIM = 64
MODEL = "test-model"


class Rows:
    """A stand-in for the repository: the memory rows a rebuild selects."""

    def __init__(self, vectors: np.ndarray):
        self.rows = [memory_row(f"m{n}", v) for n, v in enumerate(vectors)]

    def select(self, table, *, columns, as_of):
        return self.rows


def memory_row(mid: str, vector: np.ndarray) -> dict:
    return {"id": mid, "content": mid, "vector": vector_to_blob(vector), "dim": DIM, "model_version": MODEL,
            "retracted": 0, "absorbed_into": None, "amplitude": 0.5, "origin_agent": "earth-1",
            "created_at": "2026-04-01T00:00:00+00:00", "category": None, "refuted_by": None}


def built(tmp_path, vectors: np.ndarray) -> VectorIndex:
    index = VectorIndex(tmp_path, dim=DIM, model_version=MODEL)
    index.rebuild(Rows(vectors), "head-1")
    return index


def similar(count: int, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """`count` vectors close together, and their centre."""
    rng = np.random.default_rng(seed)
    centre = rng.normal(size=DIM).astype(np.float32)
    centre /= np.linalg.norm(centre)
    return (centre + rng.normal(scale=0.05, size=(count, DIM))).astype(np.float32), centre


def exact(index: VectorIndex, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    labels, sims = hnsw._scan(index._vectors, index.live_labels(), query[None, :].astype(np.float32), k)
    return labels[0], sims[0]


@pytest.fixture
def graph_only(monkeypatch):
    """Every search walks the graph, however large k is."""
    monkeypatch.setattr(hnsw, "SCAN_SHARE", 0)


def test_k_beyond_what_one_graph_search_returns_is_the_exact_top_k(tmp_path):
    vectors, centre = similar(5000)
    index = built(tmp_path, vectors)
    labels, sims = index.search_labels(centre, 1000)
    want_labels, want_sims = exact(index, centre, 1000)
    assert labels.tolist() == want_labels.tolist()
    assert sims == pytest.approx(want_sims, abs=1e-5)


def test_the_graph_returns_k_distinct_live_memories_best_first_for_a_large_k(tmp_path, graph_only):
    vectors, centre = similar(5000)
    index = built(tmp_path, vectors)
    index.remove([f"m{n}" for n in range(0, 5000, 3)])
    live = len(index)
    for k in (1000, live):
        labels, sims = index.search_labels(centre, k)
        assert len(labels) == len(set(labels.tolist())) == k
        assert set(labels.tolist()) <= set(index.live_labels().tolist())
        assert np.all(np.diff(sims) <= 0)
        want, _ = exact(index, centre, k)  # approximate: a plain search scans at such a k
        assert len(set(labels.tolist()) & set(want.tolist())) >= 0.95 * k


@pytest.mark.parametrize("walk", ["graph", "scan"])
def test_k_after_a_memory_was_re_added(tmp_path, monkeypatch, walk):
    if walk == "graph":
        monkeypatch.setattr(hnsw, "SCAN_SHARE", 0)
    vectors, centre = similar(200)
    index = built(tmp_path, vectors)
    for _ in range(3):  # reinforced and re-indexed: a new label each time, the old one removed
        index.add([memory_row("m7", vectors[7])])
    assert len(index) == 200 and index.label_count == 203
    found = index.search(vectors[7], 5)
    assert len(found) == 5 and found[0][0] == "m7"
    labels, _ = exact(index, vectors[7], 5)
    assert [mid for mid, _ in found] == index.ids_of(labels)
    everything = [mid for mid, _ in index.search(centre, 200)]
    assert sorted(everything) == sorted(f"m{n}" for n in range(200))


def test_removed_memories_are_never_returned(tmp_path):
    vectors, centre = similar(500)
    index = built(tmp_path, vectors)
    removed = {f"m{n}" for n in range(0, 500, 2)}
    index.remove(sorted(removed))
    for k in (5, 20, 100, 250, 10_000):  # the graph, then the scan
        found = [mid for mid, _ in index.search(centre, k)]
        assert len(found) == min(k, 250) and not removed & set(found)


def near(rng: np.random.Generator, points: np.ndarray, count: int, spread: float) -> np.ndarray:
    """`count` vectors, each a random one of `points` moved a little."""
    chosen = points[rng.integers(0, len(points), count)]
    return (chosen + rng.normal(scale=spread, size=chosen.shape)).astype(np.float32)


def test_the_graph_finds_what_the_exact_scan_finds_on_random_vectors(tmp_path):
    # Memories on 64 random topics, and queries that resemble some of them. (Directions drawn
    # uniformly are the worst case of any HNSW graph: hnswlib found 0.96 of their 10 nearest.)
    rng = np.random.default_rng(11)
    topics = rng.normal(size=(64, DIM)) / np.sqrt(DIM)
    memories = near(rng, topics, 5000, 0.05)
    index = built(tmp_path, memories)
    queries = near(rng, memories, 200, 0.03)
    labels, sims = index.search_many_labels(queries, 10)
    want_labels, want_sims = hnsw._scan(index._vectors, index.live_labels(), queries, 10)
    found = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(labels.tolist(), want_labels.tolist())])
    assert found >= 0.99
    # the cosines are the stored vectors', whatever precision the graph keeps
    unit = hnsw._unit(queries)
    assert sims == pytest.approx(np.einsum("qd,qkd->qk", unit, index._vectors[labels]), abs=1e-5)
    assert np.all(np.diff(sims, axis=1) <= 0)


def test_a_saved_index_loads_with_its_removals(tmp_path):
    vectors, centre = similar(300)
    index = built(tmp_path, vectors)
    index.remove(["m1", "m2"])
    index.add([memory_row("m3", vectors[3])])
    index.save()
    loaded = VectorIndex(tmp_path, dim=DIM, model_version=MODEL)
    assert loaded.load() and len(loaded) == 298 and loaded.head == "head-1"
    assert loaded.search(centre, 50) == index.search(centre, 50)
    assert loaded.labels_of(["m1", "m3"]).tolist() == [-1, 300]
    assert not VectorIndex(tmp_path, dim=DIM + 1, model_version=MODEL).load()


def test_index_files_of_another_layout_are_not_loaded(tmp_path):
    vectors, _ = similar(50)
    built(tmp_path, vectors)
    meta = (tmp_path / "index.json").read_text()
    (tmp_path / "index.json").write_text(meta.replace(files.LAYOUT, "hnswlib"))
    assert files.read_meta(tmp_path) is None
    assert not VectorIndex(tmp_path, dim=DIM, model_version=MODEL).load()


def test_files_from_two_saves_are_not_loaded(tmp_path):
    vectors, _ = similar(50)
    index = built(tmp_path, vectors)
    older_ids = (tmp_path / "index-ids.npy").read_bytes()
    index.add([memory_row("m50", vectors[0])])
    index.save()
    (tmp_path / "index-ids.npy").write_bytes(older_ids)  # as if the save died after replacing the graph
    for name in ("index-scores.npy", "index-vectors.npy"):
        stale = np.load(tmp_path / name)[:50]
        np.save(tmp_path / name, stale)
    assert not VectorIndex(tmp_path, dim=DIM, model_version=MODEL).load()


def test_the_embedder_loads_after_the_graph():
    """usearch's static C++ runtime, loaded first, made onnxruntime crash on import."""
    code = "from collective.index import graph; graph.new(8, 10); import onnxruntime"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
