"""Recall over many near-identical memories: whatever k, and however far one reinforced memory
widens the search, it neither crashes in the ANN index nor differs from a full scan."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from collective.agent import Agent, MemoryInput
from collective.core import scoring, trust
from collective.errors import BadInput
from collective.index.lexical import B, K1, terms
from collective.model import blob_to_vector, parse_time, utcnow, validate_vector
from collective.recall import MAX_K

N = 5000
REINFORCED = 17  # the memory stored again until its amplitude reaches the cap


@pytest.fixture(scope="module")
def crowd(tmp_path_factory, hash_embedder):
    """5,000 memories whose vectors all lie close to one centre (cosine 0.75 to 0.95 with it)."""
    rng = np.random.default_rng(24)
    centre = validate_vector(rng.normal(size=64), 64)
    vectors = (centre + rng.normal(scale=0.07, size=(N, 64))).astype(np.float32)
    amplitudes = rng.uniform(0.3, 1.0, size=N)
    amplitudes[REINFORCED] = 1.0
    with Agent.init("earth-1", home=tmp_path_factory.mktemp("home"), embedder=hash_embedder) as agent:
        agent.store_many([MemoryInput(f"observation {n} of the dust level", importance=float(a), vector=v)
                          for n, (v, a) in enumerate(zip(vectors, amplitudes))])
        yield agent, centre, vectors, Counter()


def recall(crowd, k: int, query: str = "ignored") -> list[tuple[str, float]]:
    """Recall through the index; the access counts it earns are kept for the full scan."""
    agent, centre, _, accessed = crowd
    hits = agent.recall(query, k=k, vector=centre)
    accessed.update(h.memory.id for h in hits)
    return [(h.memory.id, h.score) for h in hits]


def bm25_shares(rows: list[dict], query: str) -> dict[str, float]:
    """The lexical share of each row, written out from the textbook formula (index/lexical.py)."""
    docs = {r["id"]: terms(r["content"]) for r in rows}
    average = sum(map(len, docs.values())) / len(docs)
    words = list(dict.fromkeys(terms(query)))
    idf = {w: math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
           for w in words for df in [sum(w in d for d in docs.values())]}
    weight = sum(idf.values())
    return {mid: sum(idf[w] * d.count(w) * (K1 + 1) / (d.count(w) + K1 * (1 - B + B * len(d) / average))
                     for w in words) / weight if weight else 0.0 for mid, d in docs.items()}


def full_scan(crowd, counts: Counter, query: str = "ignored") -> dict[str, float]:
    """The documented score of every live memory relevant enough and not faded, computed
    from its row."""
    agent, centre, _, _ = crowd
    trust_of, now, settings = agent.trust_scores(), utcnow(), agent.settings
    rows = [r for r in agent.repo.select("memories") if not r["retracted"] and r["absorbed_into"] is None]
    lexical = bm25_shares(rows, query)
    scores = {}
    for row in rows:
        similarity = float(blob_to_vector(row["vector"]).astype(np.float64) @ centre)
        strength = row["amplitude"] * trust_of.get(row["origin_agent"], trust.START) * trust.recency(
            parse_time(row["created_at"]), now, row["category"], settings.half_lives)
        relevance = (scoring.SEMANTIC_WEIGHT * max(similarity, 0.0)
                     + (1 - scoring.SEMANTIC_WEIGHT) * min(lexical[row["id"]], 1.0) ** scoring.LEXICAL_POWER)
        if relevance >= settings.min_score and strength >= settings.fade_threshold:
            boost = min(1 + 0.05 * counts[row["id"]], 2.0)
            scores[row["id"]] = relevance * (strength * boost) ** scoring.RESONANCE_WEIGHT
    return scores


def assert_exact(crowd, k: int, query: str = "ignored") -> None:
    """The hits are the full scan's top k, best first, each with its score. Two memories whose
    scores differ by less than float32 resolves (about 1e-7) may come in either order."""
    before = Counter(crowd[3])  # a recall scores with the access counts from before it
    got, scores = recall(crowd, k, query), full_scan(crowd, before, query)
    best = sorted(scores.values(), reverse=True)[:k]
    assert len(got) == len(best) and len({mid for mid, _ in got}) == len(got)
    assert [scores[mid] for mid, _ in got] == pytest.approx(best, rel=1e-6, abs=0)
    assert [score for _, score in got] == pytest.approx([scores[mid] for mid, _ in got], rel=1e-5)


def test_recall_of_a_thousand_among_5000_similar_memories_is_the_full_scan(crowd):
    assert_exact(crowd, 1000)


@pytest.mark.parametrize("k", [1, N + 1, MAX_K])
def test_recall_of_one_or_more_than_all_is_the_full_scan(crowd, k):
    assert_exact(crowd, k)
    if k > N:
        assert len(recall(crowd, k)) == N


def test_recall_after_one_memory_reached_the_amplitude_cap_is_the_full_scan(crowd):
    """The reinforced memory's amplitude bounds every unseen memory's score, so the search
    widens to the whole index; it scans instead of asking the graph for every node."""
    agent, _, vectors, _ = crowd
    for _ in range(2):
        stored = agent.store(f"observation {REINFORCED} of the dust level", importance=1.0,
                             vector=vectors[REINFORCED])
    assert stored.deduplicated and stored.memory.amplitude == 2.0
    assert_exact(crowd, 5)
    assert_exact(crowd, 1)
    assert_exact(crowd, 1000)


@pytest.mark.parametrize("query", ["observation 4711", "observation 17 of the dust", "dust level 4999 3",
                                   "level 12 13 14 15 16 17 18 19 20"])
@pytest.mark.parametrize("k", [1, 10, 300])
def test_recall_by_words_and_meaning_is_the_full_scan(crowd, query, k):
    """Words every memory holds, and numbers only one or a few hold: memories found by a word
    far from the ANN's candidates are scored too, exactly."""
    assert_exact(crowd, k, query)


@pytest.mark.parametrize("k", [0, -1, MAX_K + 1, 2.5, "5", True, None])
def test_recall_k_out_of_range_is_bad_input(crowd, k):
    agent, centre, _, _ = crowd
    with pytest.raises(BadInput) as e:
        agent.recall("ignored", k=k, vector=centre)
    assert e.value.field == "k" and "\n" not in str(e.value)
