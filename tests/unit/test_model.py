"""The data model (collective.model): input validation, vectors as blobs, ids,
content hashes, summaries and memory rows."""

from __future__ import annotations

import json
import math
import string

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from collective.errors import BadInput
from collective.model import (Memory, blob_to_vector, content_hash, summarise, unit_rows, uuid7, uuid7s,
                              validate_amplitude, validate_phase, validate_vector, vector_to_blob)
from collective.model.memory import SUMMARY_CHARS

TAU = 2 * math.pi


def angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % TAU
    return min(d, TAU - d)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_validate_phase(value):
    if math.isfinite(value):
        out = validate_phase(value)
        assert 0.0 <= out < TAU
        assert angle_gap(out, value) < 1e-6 * max(1.0, abs(value))
    else:
        with pytest.raises(BadInput) as e:
            validate_phase(value)
        assert e.value.field == "phase"


@pytest.mark.parametrize("bad", [0, 0.0, 1.5, -1, "abc", "1", True, None, float("nan"), float("inf")])
def test_validate_amplitude_rejects(bad):
    with pytest.raises(BadInput) as e:
        validate_amplitude(bad)
    assert e.value.field == "importance"


def test_validate_amplitude_accepts():
    assert validate_amplitude(1) == 1.0 and validate_amplitude(1e-6) == 1e-6
    assert validate_amplitude(np.float32(0.5)) == 0.5


@pytest.mark.parametrize("bad", [np.ones(3), np.zeros(4), [1.0, float("nan"), 0, 0], [float("inf"), 0, 0, 0], "abcd"])
def test_validate_vector_rejects(bad):
    with pytest.raises(BadInput) as e:
        validate_vector(bad, 4)
    assert e.value.field == "vector"


@given(st.lists(st.floats(-100, 100), min_size=8, max_size=8))
def test_vector_blob_round_trip_is_unit(values):
    assume(np.linalg.norm(np.asarray(values, dtype=np.float32)) > 1e-3)
    v = validate_vector(values, 8)
    assert np.linalg.norm(v) == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(blob_to_vector(vector_to_blob(v)), v)
    assert len(vector_to_blob(v)) == 32


def test_uuid7_is_time_ordered_and_versioned():
    ids = [uuid7() for _ in range(500)]
    assert ids == sorted(ids) and len(set(ids)) == 500
    assert all(i[14] == "7" and i[19] in "89ab" for i in ids)


def test_a_batch_of_ids_is_ordered_with_the_ids_made_one_at_a_time():
    ids = [uuid7(), *uuid7s(2000), uuid7(), *uuid7s(1), *uuid7s(0)]
    assert ids == sorted(ids) and len(set(ids)) == 2003
    assert all(len(i) == 36 and i[14] == "7" and i[19] in "89ab" for i in ids)


@given(st.lists(st.lists(st.floats(-100, 100), min_size=8, max_size=8), min_size=1, max_size=5))
def test_unit_rows_are_what_validate_vector_makes_of_each(vectors):
    assume(all(np.linalg.norm(np.asarray(v, dtype=np.float32)) > 1e-3 for v in vectors))
    rows = unit_rows(vectors, 8)
    assert rows.shape == (len(vectors), 8) and rows.dtype == np.float32
    for row, vector in zip(rows, vectors):
        assert np.allclose(row, validate_vector(vector, 8), atol=1e-6)


@pytest.mark.parametrize("bad", [np.ones(3), np.zeros(4), [1.0, float("nan"), 0, 0], [float("inf"), 0, 0, 0], "abcd",
                                 None, [[1.0, 0, 0, 0]]])
def test_unit_rows_leave_a_batch_with_a_bad_vector_to_validate_vector(bad):
    assert unit_rows([np.ones(4), bad], 4) is None


@given(st.text(alphabet=string.ascii_letters + " \t\n", min_size=1, max_size=80))
def test_content_hash_folds_case_and_whitespace(text):
    respaced = "  " + "\n\t ".join(text.swapcase().split()) + " "
    assert content_hash(text) == content_hash(respaced)


def test_content_hash_keeps_words_apart():
    assert content_hash("the pump is safe") != content_hash("the pump is not safe")
    assert content_hash("a b") != content_hash("ab")


@given(st.text(min_size=1, max_size=600))
def test_summary_is_short(text):
    summary = summarise(text)
    assert len(summary) <= SUMMARY_CHARS
    # the start of the text, whitespace folded (cut with an ellipsis when too long); empty only for blank text
    words = " ".join(text.split())
    assert words.startswith(summary.removesuffix("…"))
    assert bool(summary) == bool(words)


def test_summary_is_the_first_sentence():
    assert summarise("The pump is safe.  It was checked on sol 12.") == "The pump is safe."
    assert summarise("Dr. Okafor checked it. Twice.") == "Dr. Okafor checked it."
    cut = summarise("word " * 100)
    assert len(cut) <= SUMMARY_CHARS and cut.endswith("word…")


def test_memory_row_round_trip():
    v = validate_vector(np.arange(1, 5), 4)
    m = Memory(id=uuid7(), content="c", summary="c", vector=v, dim=4, model_version="m", content_hash="h",
               amplitude=0.5, phase=1.0, category="skill", origin_agent="earth-1", created_at="t", updated_at="t",
               tags=["a", "b"], parents=["p"], merge_history=[{"type": "x"}], disputed=True)
    row = m.to_row()
    assert isinstance(row["vector"], bytes) and row["tags"] == '["a", "b"]' and row["disputed"] == 1
    back = Memory.from_row(row)
    assert back.tags == ["a", "b"] and back.parents == ["p"] and back.disputed is True
    assert np.array_equal(back.vector, v) and back.claim() == m.claim()


@given(tags=st.lists(st.text(max_size=8), max_size=3), stance=st.one_of(st.none(), st.text(max_size=8)),
       category=st.text(max_size=8))
def test_a_claim_is_its_documents_sorted_compact_json(tags, stance, category):
    m = Memory(id=uuid7(), content="Die Pumpe läuft.", summary="s", vector=np.ones(4, np.float32), dim=4,
               model_version="m", content_hash="h", amplitude=0.5, phase=1.0, category=category,
               origin_agent="earth-1", created_at="t", updated_at="t", stance=stance, tags=tags, parents=["p"])
    doc = {"id": m.id, "origin_agent": "earth-1", "content_hash": content_hash(m.content), "model_version": "m",
           "category": category, "stance": stance, "tags": sorted(tags), "parents": ["p"], "created_at": "t",
           "retracted": False}
    assert m.claim() == json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8")


def test_the_claim_columns_are_what_a_claim_signs():
    m = Memory(id=uuid7(), content="c", summary="c", vector=np.ones(4, np.float32), dim=4, model_version="m",
               content_hash="h", amplitude=0.5, phase=1.0, category="fact", origin_agent="earth-1", created_at="t",
               updated_at="t")
    assert sorted(json.loads(m.claim())) == sorted(Memory.CLAIM_COLUMNS)
    assert set(Memory.CLAIM_COLUMNS) <= set(Memory.columns())
