"""Aligning two texts word by word: lemma matches, then the embedder's word vectors.

Most missed agreements are paraphrases whose sentence cosine is low ("The
ridge weather station has gone silent" / "The weather station on the ridge
stopped transmitting"). Here each word of one text meets its best partner in
the other by the cosine of the two words' vectors.
The vectors are the default embedder's vectors of each whole word of its
vocabulary, reduced to 64 int8 dimensions (scripts/build_word_vectors.py;
judge_data/word_vectors.*), loaded on first use and shared by forked workers.
A word without a vector meets only its own stem.
"""

from __future__ import annotations

import zlib
from functools import lru_cache
from importlib import resources

import numpy as np

from .analysis import Analysis
from .text import stem

_SUFFIXES = ("s", "es", "ed", "d", "ing", "ly")
UNALIGNED = 0.5  # a word whose best partner lies under this cosine is left unaligned


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, int], np.ndarray]:
    folder = resources.files("collective.judge") / "judge_data"
    words = (folder / "word_vectors.txt").read_text(encoding="utf-8").split()
    with (folder / "word_vectors.npy").open("rb") as f:
        raw = np.load(f, allow_pickle=False)
    vectors = raw.astype(np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-6)
    return {w: i for i, w in enumerate(words)}, vectors


def _row(word: str, index: dict[str, int]) -> int | None:
    """The vocabulary row of a word or of its bare form ("recalibrated" -> "recalibrate")."""
    i = index.get(word)
    if i is not None:
        return i
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            i = index.get(base)
            if i is None:
                i = index.get(base + "e")
            if i is not None:
                return i
    return None


@lru_cache(maxsize=65536)
def text_vectors(words: tuple[str, ...]) -> np.ndarray:
    """A unit vector per word. A word outside the vocabulary gets a fixed pseudo-random
    vector drawn from its stem: it matches its own stem (cosine 1) and little else."""
    index, table = _table()
    vecs = np.empty((len(words), table.shape[1]), dtype=np.float32)
    for k, w in enumerate(words):
        r = _row(w.replace("-", ""), index)
        if r is not None:
            vecs[k] = table[r]
        else:
            v = np.random.default_rng(zlib.crc32(stem(w).encode("utf-8"))).standard_normal(table.shape[1])
            vecs[k] = v / np.linalg.norm(v)
    return vecs


def alignment(a_words: tuple[str, ...], b_words: tuple[str, ...]) -> tuple[float, float, float, float]:
    """(mean best match of a's words, of b's words, share of a's words left unaligned (< UNALIGNED),
    the same for b). An empty side aligns with nothing."""
    if not a_words or not b_words:
        return 0.0, 0.0, 1.0, 1.0
    sim = text_vectors(a_words) @ text_vectors(b_words).T
    best_a, best_b = sim.max(axis=1).tolist(), sim.max(axis=0).tolist()
    return (sum(best_a) / len(best_a), sum(best_b) / len(best_b),
            sum(x < UNALIGNED for x in best_a) / len(best_a), sum(x < UNALIGNED for x in best_b) / len(best_b))


# What one text adds to another is counted in claim words, people and places (times, numbers
# and identities are the slot readers' to compare). Two such words, or one name, are a fact
# of its own: "Maria moved to Lisbon in 2023" / "... for a job at a bakery".
ADDED_WORDS = 2


def says_more(a: Analysis, b: Analysis) -> tuple[str, ...]:
    """The words b adds to a when b says all a says and more: b's claim words, people
    and places that meet no partner in a (a word-vector cosine under 0.5). Empty when a
    also says something b does not (a paraphrase rewords both ways), or b adds too little."""
    if _unmatched(b, a):
        return ()
    added = _unmatched(a, b)
    names = b.people | b.owners
    if len(added) >= ADDED_WORDS or any(w in names for w in added):
        return added
    return ()


def _unmatched(a: Analysis, b: Analysis) -> tuple[str, ...]:
    """b's claim words, people and places with no partner among a's words."""
    keep = b.content | b.people | b.owners | frozenset(s for p in b.places + b.subject_places for s in p)
    words = tuple(w for w in b.words if w in keep or stem(w) in keep)
    if not words or not a.words:
        return words
    best = (text_vectors(words) @ text_vectors(a.words).T).max(axis=1)
    return tuple(w for w, s in zip(words, best.tolist()) if s < UNALIGNED)
