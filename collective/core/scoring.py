"""Recall's score, pure.

A memory's relevance to a query is what the query's words and meaning find in it:

    relevance = SEMANTIC_WEIGHT * max(cos, 0) + (1 - SEMANTIC_WEIGHT) * min(lexical, 1) ** 2

(lexical: the share of the query's BM25 weight the memory's words hold, index/lexical.py).
Squared, so that a word or two in common with an unrelated memory adds little (a share of
0.3 adds 0.027) while a memory holding the query's words adds up to 0.3: a keyword query
("pump") finds its memory, and a paraphrase is not pushed out by incidental words.
Chosen on the development questions and the public set of scripts/bench_recall_quality.py
(docs/concepts/recall.md): there it ranks as well as cosine alone where words do not help, and better
where they do; linear mixes and reciprocal rank fusion ranked worse on both.
A memory also borrows from the memories stored beside it (core/context.py): its relevance
is at least 0.7 of its more relevant neighbour's.
Resonance (amplitude * trust(origin) * recency * boost(access)) then re-ranks within
what is relevant, damped so that it cannot outweigh a clear difference in relevance:

    score = relevance * resonance ** RESONANCE_WEIGHT

The strength part (amplitude * trust * recency) is computed from a compact
table of each memory's score columns, which the ANN index keeps beside its
vectors, so recall ranks candidates without reading their rows. Whether recall
leaves a memory out as faded weighs amplitude * recency alone (`fading`): trust
and disputes rank, they never hide.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from ..model import CATEGORIES, parse_time
from . import trust

BOOST_STEP, BOOST_MAX = 0.05, 2.0
SEMANTIC_WEIGHT = 0.7
LEXICAL_POWER = 2
RESONANCE_WEIGHT = 0.25  # a memory 16 times stronger ranks as if twice as relevant
SCORE_COLUMNS = ("amplitude", "origin_agent", "created_at", "category", "refuted_by", "disputed")  # what recall reads
# per memory: the strength's inputs, origins as codes, whether a verdict refuted it and whether
# a dispute is open on it
SCORE_DTYPE = np.dtype([("amplitude", "<f4"), ("created", "<f8"), ("category", "i1"), ("origin", "<i4"),
                        ("refuted", "i1"), ("disputed", "i1")])


def boost(access_counts: np.ndarray) -> np.ndarray:
    """boost(n) = min(1 + 0.05 n, 2): memories recalled often come back more easily."""
    return np.minimum(1 + BOOST_STEP * access_counts, BOOST_MAX)


def relevance(similarities: np.ndarray, lexical: np.ndarray) -> np.ndarray:
    """How much the query's meaning and words find in each memory, 0 to 1; a negative
    cosine counts as no resemblance."""
    return (SEMANTIC_WEIGHT * np.maximum(similarities, 0.0)
            + (1 - SEMANTIC_WEIGHT) * np.clip(lexical, 0.0, 1.0) ** LEXICAL_POWER)


def resonance(strength: np.ndarray, access_counts: np.ndarray) -> np.ndarray:
    """The damped factor resonance multiplies relevance by."""
    return (np.asarray(strength, dtype=np.float64) * boost(access_counts)) ** RESONANCE_WEIGHT


def scores(relevances: np.ndarray, strength: np.ndarray, access_counts: np.ndarray) -> np.ndarray:
    """The recall score of each memory."""
    return np.asarray(relevances, dtype=np.float64) * resonance(strength, access_counts)


def score_table(rows: Sequence[dict], origin_code: Callable[[str], int]) -> np.ndarray:
    """The SCORE_COLUMNS of memory rows as one array; origins as codes from `origin_code`."""
    table = np.zeros(len(rows), dtype=SCORE_DTYPE)
    table["amplitude"] = [r["amplitude"] for r in rows]
    table["created"] = [parse_time(r["created_at"]).timestamp() for r in rows]
    table["category"] = [CATEGORIES.index(r["category"]) if r["category"] in CATEGORIES else -1 for r in rows]
    table["origin"] = [origin_code(r["origin_agent"]) for r in rows]
    table["refuted"] = [1 if r.get("refuted_by") else 0 for r in rows]
    table["disputed"] = [1 if r.get("disputed") else 0 for r in rows]
    return table


def _half_lives(table: np.ndarray, half_lives: Mapping[str, float]) -> np.ndarray:
    """Each entry's half-life in days, by category code; code -1 (a category this code does
    not know) takes the last, the default."""
    return np.array([trust.half_life_days(c, half_lives) for c in (*CATEGORIES, "")])[table["category"]]


def strengths(table: np.ndarray, origins: Sequence[str], trust_scores: Mapping[str, float], now: float,
              half_lives: Mapping[str, float]) -> np.ndarray:
    """amplitude * trust of the origin * recency of each entry of a score_table at `now` (epoch s)."""
    origin_trust = np.array([trust_scores.get(o, trust.START) for o in origins] or [0.0])
    return trust.strengths(table["amplitude"].astype(np.float64), origin_trust[table["origin"]],
                           now - table["created"], _half_lives(table, half_lives))


def fading(table: np.ndarray, now: float, half_lives: Mapping[str, float]) -> np.ndarray:
    """What fading weighs for each entry of a score_table at `now`: amplitude * recency, and
    inf (never faded) while a dispute is open on it. A memory fades with age and weak
    importance only: trust lowers its rank, never hides it. A dispute's penalty is in its
    amplitude until a verdict gives it back, so it too only lowers the rank: the question
    stays in sight, marked, of whoever recalls it."""
    weighed = table["amplitude"].astype(np.float64) * trust.recencies(now - table["created"],
                                                                      _half_lives(table, half_lives))
    return np.where(table["disputed"] != 0, np.inf, weighed)


def row_fading(rows: Sequence[dict], now: float, half_lives: Mapping[str, float]) -> np.ndarray:
    """`fading` of memory rows (with the SCORE_COLUMNS) at `now`."""
    return fading(score_table(rows, lambda origin: 0), now, half_lives)


def row_strengths(rows: Sequence[dict], trust_scores: Mapping[str, float], now: float,
                  half_lives: Mapping[str, float]) -> np.ndarray:
    """amplitude * trust of the origin * recency of memory rows (with the SCORE_COLUMNS) at `now`."""
    origins = sorted({r["origin_agent"] for r in rows})
    table = score_table(rows, {o: code for code, o in enumerate(origins)}.__getitem__)
    return strengths(table, origins, trust_scores, now, half_lives)


# --- co-access and field stability (the resonance-field seed) -------------------------------

COACCESS_STEP = 0.02
COACCESS_CAP = 1.5  # a dream's co-access folding raises an amplitude by at most this factor
STABILITY_MEAN_WEIGHT, STABILITY_SPREAD_WEIGHT = 0.6, 0.4


def coaccess_bonus(k: int) -> float:
    """The factor one recall of k memories together earns each of them: 1 + 0.02 (k - 1)."""
    return 1.0 + COACCESS_STEP * max(k - 1, 0)


def fold_coaccess(amplitude: np.ndarray, factor: np.ndarray, *, cap: float = COACCESS_CAP,
                  ceiling: float = float("inf")) -> np.ndarray:
    """S_new = min(S * prod(1 + 0.02 (k - 1)), S * cap), never above `ceiling` (nor below S)."""
    amplitude = np.asarray(amplitude, dtype=np.float64)
    raised = np.minimum(amplitude * np.asarray(factor, dtype=np.float64), amplitude * cap)
    return np.maximum(np.minimum(raised, ceiling), np.minimum(amplitude, ceiling))


def field_stability(strengths: np.ndarray, *, faded: np.ndarray | None = None) -> float:
    """0.6 * mean decayed strength + 0.4 * max(0, 1 - stddev / mean): how settled a memory is.

    A faded memory (True in `faded`: one recall leaves out, see `fading`) counts as 0, so an
    empty or fully faded memory has stability 0."""
    values = np.asarray(strengths, dtype=np.float64)
    if values.size == 0:
        return 0.0
    if faded is not None:
        values = np.where(faded, 0.0, values)
    mean = float(values.mean())
    if mean <= 0.0:
        return 0.0
    spread = max(0.0, 1.0 - float(values.std()) / mean)
    return STABILITY_MEAN_WEIGHT * mean + STABILITY_SPREAD_WEIGHT * spread
