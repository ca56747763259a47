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


def recall(crowd, k: int, query: str = "ignored", least: float | None = None) -> list[tuple[str, float]]:
    """Recall through the index; the access counts it earns are kept for the full scan."""
    agent, centre, _, accessed = crowd
    hits = agent.recall(query, k=k, vector=centre, min_score=least)
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


def full_scan(crowd, counts: Counter, query: str = "ignored", least: float | None = None) -> dict[str, float]:
    """The documented score of every live memory relevant enough and not faded, computed
    from its row."""
    agent, centre, _, _ = crowd
    trust_of, now, settings = agent.trust_scores(), utcnow(), agent.settings
    rows = [r for r in agent.repo.select("memories") if not r["retracted"] and r["absorbed_into"] is None]
    lexical = bm25_shares(rows, query)
    own = {}
    for row in rows:
        similarity = float(blob_to_vector(row["vector"]).astype(np.float64) @ centre)
        own[row["id"]] = (scoring.SEMANTIC_WEIGHT * max(similarity, 0.0)
                          + (1 - scoring.SEMANTIC_WEIGHT) * min(lexical[row["id"]], 1.0) ** scoring.LEXICAL_POWER)
    borrowed = borrowed_from_neighbours(rows, own)
    scores = {}
    for row in rows:
        recency = trust.recency(parse_time(row["created_at"]), now, row["category"], settings.half_lives)
        strength = row["amplitude"] * trust_of.get(row["origin_agent"], trust.START) * recency
        # faded: weak and old, trust aside; never while disputed (docs/concepts/recall.md)
        faded = not row["disputed"] and row["amplitude"] * recency < settings.fade_threshold
        if own[row["id"]] >= (settings.min_score if least is None else least) and not faded:
            boost = min(1 + 0.05 * counts[row["id"]], 2.0)
            relevance = max(own[row["id"]], borrowed[row["id"]])
            scores[row["id"]] = relevance * (strength * boost) ** scoring.RESONANCE_WEIGHT
    return scores


def borrowed_from_neighbours(rows: list[dict], own: dict[str, float]) -> dict[str, float]:
    """0.7 of the more relevant of the memories its origin stored just before and just after it,
    at most 30 minutes apart (core/context.py), written out."""
    ordered = sorted(rows, key=lambda r: (r["origin_agent"], parse_time(r["created_at"]), r["id"]))
    out = {r["id"]: 0.0 for r in rows}
    for first, second in zip(ordered, ordered[1:]):
        if first["origin_agent"] == second["origin_agent"] and (
                parse_time(second["created_at"]) - parse_time(first["created_at"])).total_seconds() <= 1800:
            out[first["id"]] = max(out[first["id"]], 0.7 * own[second["id"]])
            out[second["id"]] = max(out[second["id"]], 0.7 * own[first["id"]])
    return out


def assert_exact(crowd, k: int, query: str = "ignored", least: float | None = None) -> None:
    """The hits are the full scan's top k, best first, each with its score. Two memories whose
    scores differ by less than float32 resolves (about 1e-7) may come in either order."""
    before = Counter(crowd[3])  # a recall scores with the access counts from before it
    got, scores = recall(crowd, k, query, least), full_scan(crowd, before, query, least)
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


def test_a_recall_leaves_no_cosine_or_word_score_behind_for_the_next(crowd):
    """A query keeps its cosines and word scores in arrays the index lends it and takes back
    clean: one by other words and another meaning first changes nothing of the next (the
    memory nearest the next one's meaning holds the first one's rare word, not the next's)."""
    agent, centre, vectors, accessed = crowd
    nearest = int(np.argmax((vectors / np.linalg.norm(vectors, axis=1, keepdims=True)) @ centre))
    assert not {"13", "14"} & set(terms(f"observation {nearest}"))
    elsewhere = validate_vector(vectors[5] - centre, 64)
    hits = agent.recall(f"observation {nearest} dust", k=300, vector=elsewhere, min_score=0.0)
    accessed.update(h.memory.id for h in hits)
    assert_exact(crowd, 10, "13 14")
    assert_exact(crowd, 300, "observation 17 of the dust")


@pytest.mark.parametrize("k", [0, -1, MAX_K + 1, 2.5, "5", True, None])
def test_recall_k_out_of_range_is_bad_input(crowd, k):
    agent, centre, _, _ = crowd
    with pytest.raises(BadInput) as e:
        agent.recall("ignored", k=k, vector=centre)
    assert e.value.field == "k" and "\n" not in str(e.value)


def stored_chat(home, embedder, *, question_near_query: bool):
    """2,000 turns of a chat stored in order, each question followed by its reply. Question 1000
    holds the words "beagle" and "puppy"; the turns beside it hold no query word and are
    orthogonal to the query (cosine 0: no ANN search finds them by meaning). The question
    lies next to the query in meaning, or opposite it (then only its words find it)."""
    rng = np.random.default_rng(25)
    vectors = rng.normal(size=(2000, 64)).astype(np.float32)
    query = validate_vector(rng.normal(size=64), 64)
    vectors[1000] = query + rng.normal(scale=0.02, size=64) if question_near_query else -query
    for n in (999, 1001):
        vectors[n] -= (vectors[n] @ query) * query
    texts = [f"question {n}: what breed is the dog {n // 2}?" if n % 2 == 0 else f"reply {n}: a mix, maybe some basset"
             for n in range(2000)]
    texts[1000] = "so what breed is the new puppy? beagle?"
    texts[1001] = "a mix, they think some basset in there"
    agent = Agent.init("earth-1", home=home, embedder=embedder)
    agent.store_many([MemoryInput(t, vector=v) for t, v in zip(texts, vectors)])
    return agent, query, vectors, Counter()


@pytest.fixture(scope="module")
def chat(tmp_path_factory, hash_embedder):
    agent, *rest = stored_chat(tmp_path_factory.mktemp("chat"), hash_embedder, question_near_query=True)
    with agent:
        yield agent, *rest


@pytest.fixture(scope="module")
def far_chat(tmp_path_factory, hash_embedder):
    agent, *rest = stored_chat(tmp_path_factory.mktemp("far-chat"), hash_embedder, question_near_query=False)
    with agent:
        yield agent, *rest


@pytest.mark.parametrize("k", [1, 2, 10, 500])
def test_a_reply_is_found_through_the_question_before_it_and_recall_stays_the_full_scan(chat, k):
    """The reply's own relevance (no word, a cosine near 0) is far below the question's; it
    borrows 0.7 of the question's, and is ranked with that, exactly as a full scan ranks it."""
    assert_exact(chat, k, "beagle puppy")
    assert_exact(chat, k, "beagle puppy", least=0.0)
    assert_exact(chat, k, "ignored", least=0.0)  # the question found by meaning alone lends to its neighbours
    if k >= 10:
        agent = chat[0]
        hits = agent.recall("beagle puppy", k=k, vector=chat[1], min_score=0.0)
        chat[3].update(h.memory.id for h in hits)  # the full scan counts these accesses too
        texts = [h.memory.content for h in hits]
        # the turns just before and just after the question borrow alike
        assert texts[0] == "so what breed is the new puppy? beagle?"
        assert set(texts[1:3]) == {"reply 999: a mix, maybe some basset", "a mix, they think some basset in there"}
        reply = hits[texts.index("a mix, they think some basset in there")]
        assert reply.context == pytest.approx(0.7 * hits[0].relevance, rel=1e-6) and reply.relevance < 0.15
        assert reply.similarity < 0.5 and reply.lexical == 0 and "from the memory stored beside it" in reply.why()


@pytest.mark.parametrize("k", [50, 200])
def test_a_reply_beside_a_question_found_by_its_words_alone_is_scored_too(far_chat, k):
    """The question lies opposite the query: no ANN search reaches it nor its neighbours; its
    words do, and what its neighbours may borrow from it is bounded and scored with them."""
    assert_exact(far_chat, k, "beagle puppy", least=0.0)
    hits = far_chat[0].recall("beagle puppy", k=k, vector=far_chat[1], min_score=0.0)
    far_chat[3].update(h.memory.id for h in hits)
    assert "a mix, they think some basset in there" in [h.memory.content for h in hits]


def test_recall_as_of_the_head_borrows_as_recall_does(chat):
    """The as-of path (brute force over the rows of a commit) finds the same neighbours."""
    agent, query, _, accessed = chat
    then = agent.recall("beagle puppy", k=10, vector=query, min_score=0.0, as_of=agent.log(1)[0].hash)
    now = agent.recall("beagle puppy", k=10, vector=query, min_score=0.0)
    accessed.update(h.memory.id for h in now)
    assert [h.memory.id for h in then] == [h.memory.id for h in now]
    assert [h.context for h in then] == pytest.approx([h.context for h in now], rel=1e-5)
    assert [h.score for h in then] == pytest.approx([h.score for h in now], rel=1e-5)
