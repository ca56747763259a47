#!/usr/bin/env python3
"""Store and recall benchmarks. Prints one JSON line per measurement.

Each line carries a baseline measured in the same run, the target and whether
it was met, and the machine load, so numbers from a busy machine say so:

- batch_store: Agent.store_many of N memories with given vectors (no model
  runs) as one commit, against a plain stdlib-sqlite3 executemany of the same
  rows into a plain SQLite file in a process that never imports doltlite.
- recall_p50_ms, recall_p95_ms, recall_at_10: hybrid Agent.recall over R
  memories, a text query with its vector given (query embedding excluded).
  Each memory is 6 to 20 English words drawn by Zipf's law (s = 1.1, from rank
  101: the first hundred ranks are stop words in real text) from the 21,719
  words of the judge's vocabulary, so the commonest words are in about 3% of
  memories and rare ones in a few; each query is 2 to 5 words of one memory
  with a vector near that memory's. Against numpy brute force of the same
  score, BM25 of every memory and what each borrows from the memories stored
  beside it included (latency), and its exact ranking (recall@10). The
  memories are stored and indexed in a process of their own; the recalls are
  timed in a process that opens the agent, as `cmem recall` or a server does,
  and in the building one too (`in_building_process`).

`cmem store` from process start to exit is scripts/bench_cli.py's; the default
embedder's throughput, and a store of real text, scripts/bench_embed.py's.

    python scripts/bench_store_recall.py            # 10k store, 100k recall
    python scripts/bench_store_recall.py --quick    # 200 store, 500 recall: seconds
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import numpy as np

from collective.agent import Agent, MemoryInput
from collective.core import context, scoring
from collective.embedders import HashEmbedder
from collective.index.lexical import B, K1, terms
from collective.store.sql import migrations, split_statements

from benchkit import parse_args

DIM = 384
SEED = 20260401
QUICK = {"n": 200, "recall_n": 500, "queries": 20}
TARGET_PER_S, TARGET_SLOWDOWN = 20_000, 3.5


def load() -> float:
    return round(os.getloadavg()[0], 2)


def emit(record: dict) -> None:
    record.setdefault("cpus", os.cpu_count())
    print(json.dumps(record), flush=True)


def clustered(n: int, rng: np.random.Generator, clusters: int = 256, spread: float = 0.05) -> np.ndarray:
    """Unit vectors around random centres: same-cluster cosine ~0.5, like related sentences."""
    centres = rng.normal(size=(clusters, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 20_000):
        stop = min(n, start + 20_000)
        block = centres[rng.integers(0, clusters, stop - start)]
        block = block + rng.normal(scale=spread, size=block.shape).astype(np.float32)
        out[start:stop] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


COMMONEST_LEFT_OUT = 100  # ranks of Zipf's law that are stop words in real text (left out of the index anyway)


def sentences(n: int, rng: np.random.Generator) -> list[str]:
    """n texts of Zipf-distributed English words (see the module's docstring)."""
    words = (Path(collective.__file__).parent / "judge" / "judge_data" / "word_vectors.txt").read_text().split()
    ranks = np.arange(COMMONEST_LEFT_OUT + 1, len(words) + COMMONEST_LEFT_OUT + 1)
    p = ranks ** -1.1
    order = rng.permutation(len(words))  # which word is common is drawn too, not alphabetical
    lengths = rng.integers(6, 21, n)
    drawn = rng.choice(len(words), size=int(lengths.sum()), p=p / p.sum())
    cuts = np.cumsum(lengths)[:-1]
    return [" ".join(words[order[i]] for i in part) for part in np.split(drawn, cuts)]


def texts(n: int, offset: int = 0) -> list[str]:
    return [f"observation {i}: sensor {i % 97} on deck {i % 7} read {i * 37 % 1000} units" for i in
            range(offset, offset + n)]


# --- batch store ------------------------------------------------------------------
PLAIN_SQLITE = r"""
import pickle, sqlite3, sys, time
rows_file, db_file = sys.argv[1], sys.argv[2]
try:
    sqlite3.connect(":memory:").execute("SELECT dolt_version()")
    raise SystemExit("this baseline must run on plain SQLite, but doltlite is loaded")
except sqlite3.OperationalError:
    pass
with open(rows_file, "rb") as f:
    schema, columns, rows = pickle.load(f)
conn = sqlite3.connect(db_file, isolation_level=None)
for statement in schema:
    conn.execute(statement)
sql = f"INSERT INTO memories ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
t = time.perf_counter()
conn.execute("BEGIN IMMEDIATE")
conn.executemany(sql, rows)
conn.execute("COMMIT")
print(time.perf_counter() - t, sqlite3.sqlite_version)
"""


def plain_schema() -> list[str]:
    """Every statement of every migration, in order, as SqlRepository.migrate runs them, so the
    baseline's tables and indexes are the agent's. Statements on Dolt's own tables (the
    dolt_ignore row) are left out: plain SQLite has none, and no memory row depends on them."""
    return [s for _, sql in migrations("sqlite") for s in split_statements(sql)
            if not re.search(r"\bdolt_\w+", s)]


def plain_env() -> dict:
    env = dict(os.environ)
    env.pop("_DOLTLITE_BOOTSTRAPPED", None)
    if "doltlite" in env.get("LD_PRELOAD", ""):
        env.pop("LD_PRELOAD")
    return env


def bench_batch_store(work: Path, n: int) -> None:
    rng = np.random.default_rng(SEED)
    vectors = clustered(n, rng)
    items = [MemoryInput(t, vector=v) for t, v in zip(texts(n), vectors)]
    l0 = load()
    with Agent.init("bench-store", home=work / "store", embedder=HashEmbedder(DIM)) as agent:
        commits = len(agent.log(None))
        t = time.perf_counter()
        results = agent.store_many(items)
        seconds = time.perf_counter() - t
        assert len(agent.log(None)) == commits + 1 and not any(r.deduplicated for r in results)
        rows = agent.repo.select("memories")
    columns = list(rows[0])
    rows_file = work / "rows.pickle"
    with open(rows_file, "wb") as f:
        pickle.dump((plain_schema(), columns, [tuple(r[c] for c in columns) for r in rows]), f)
    done = subprocess.run([sys.executable, "-c", PLAIN_SQLITE, str(rows_file), str(work / "plain.sqlite")],
                          env=plain_env(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the plain SQLite baseline failed: {done.stderr.strip()[-2000:]}")
    base_seconds, sqlite_version = done.stdout.split()
    base_seconds = float(base_seconds)
    rate = n / seconds
    emit({"measurement": "batch_store", "n": n, "seconds": round(seconds, 3),
          "memories_per_s": round(rate), "commits": 1,
          "baseline": {"what": f"stdlib sqlite3 {sqlite_version} executemany of the same rows, one transaction, "
                               "plain SQLite file, separate process without doltlite",
                       "seconds": round(base_seconds, 3), "memories_per_s": round(n / base_seconds)},
          "slowdown_vs_baseline": round(seconds / base_seconds, 2),
          "target": f">= {TARGET_PER_S} memories/s, at most {TARGET_SLOWDOWN}x the baseline's time",
          "meets_target": rate >= TARGET_PER_S and seconds <= TARGET_SLOWDOWN * base_seconds,
          "load_1m": [l0, load()]})


# --- recall ----------------------------------------------------------------------------
def recall_inputs(n: int, queries: int) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, list[str]]:
    """The memories (vectors, amplitudes, texts) and the queries (vectors, words): seeded, the
    same in every process."""
    rng = np.random.default_rng(SEED + 1)
    vectors = clustered(n, rng)
    # most memories at the default amplitude, a fifth reinforced or marked important
    amplitudes = np.where(rng.random(n) < 0.8, 0.5, rng.uniform(0.3, 1.0, n)).astype(np.float64)
    written = sentences(n, rng)
    targets = rng.integers(0, n, queries)
    qs = vectors[targets] + rng.normal(scale=0.03, size=(queries, DIM)).astype(np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    words = [" ".join(rng.choice(written[t].split(), size=int(rng.integers(2, 6)))) for t in targets]
    return vectors, amplitudes, written, qs, words


def populate(work: Path, n: int, queries: int, batch: int) -> dict:
    """Store and index the memories (in a process of its own, see `bench_recall`), then time the
    recalls there too: the seconds of each part and of each recall."""
    vectors, amplitudes, written, qs, words = recall_inputs(n, queries)
    t = time.perf_counter()
    agent = Agent.init("bench-recall", home=work / "recall", embedder=HashEmbedder(DIM))
    try:
        for start in range(0, n, batch):
            stop = min(n, start + batch)
            agent.store_many([MemoryInput(t_, importance=float(a), vector=v) for t_, a, v in
                              zip(written[start:stop], amplitudes[start:stop], vectors[start:stop])])
        store_seconds = time.perf_counter() - t
        t = time.perf_counter()
        agent.index()
        index_seconds = time.perf_counter() - t
        agent.recall("warm-up", k=10, vector=qs[0])  # first query loads what the process caches
        building, _ = timed_recalls(agent, qs, words)
    finally:
        agent.close()
    return {"store_s": store_seconds, "index_build_s": index_seconds, "latencies": building}


def bench_recall(work: Path, n: int, queries: int, batch: int = 10_000) -> None:
    # The memories are stored and indexed in a process of their own; the recalls are timed in
    # this one, which opens the agent as every later process does (`cmem recall`, a server
    # started on the store): the index loaded from its files. The same recalls are timed in
    # the process that stored and indexed 100k memories too (`in_building_process`): they ran
    # 10-20% slower there, in every part alike (its heap holds what storing and building left).
    l0 = load()
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        built = pool.submit(populate, work, n, queries, batch).result()
    vectors, amplitudes, written, qs, words = recall_inputs(n, queries)
    agent = Agent.open("bench-recall", home=work / "recall", embedder=HashEmbedder(DIM))
    try:
        order = {r["id"]: i for i, r in enumerate(agent.repo.select("memories", columns=("id", "content")))}
        ids = list(order)
        # rows come back in id (time) order, which is insertion order: check it
        contents = [r["content"] for r in agent.repo.select("memories", columns=("content",))]
        assert contents[:3] == written[:3] and contents[-1] == written[-1]
        t = time.perf_counter()
        agent.index()
        load_seconds = time.perf_counter() - t
        agent.recall("warm-up", k=10, vector=qs[0])  # first query loads what the process caches
        access = np.zeros(n)
        for mid, count in ((r["memory_id"], r["count"]) for r in agent.repo.select("local_access")):
            access[order[mid]] = count
        latencies, answers = timed_recalls(agent, qs, words)
    # Replayed afterwards, so that numpy's threads never compete with the timed recalls:
        # the same score over every memory, with the access counts each query saw.
        brute, overlap, ann_overlap = [], [], []
        index = agent.index()
        bm25 = Bm25([terms(t) for t in written])
        # stored in batches that share their time, one origin: each memory's neighbours are the
        # memories stored just before and after it (core.context), in order
        before, after = context.neighbours(np.arange(n), np.zeros(n), np.zeros(n), n)
        for q, query, got in zip(qs, words, answers):
            t = time.perf_counter()
            own = scoring.relevance(vectors @ q, bm25.shares(terms(query)))
            relevance = np.maximum(own, context.lent(own, before, after))
            score = scoring.scores(relevance, amplitudes, access)
            top = np.argpartition(-score, 10)[:10]
            top = top[np.argsort(-score[top])]
            brute.append(time.perf_counter() - t)
            exact = {ids[i] for i in top}
            overlap.append(len(exact & set(got)) / 10)
            ann_overlap.append(len(exact & {mid for mid, _ in index.search(q, 10)}) / 10)
            for mid in got:
                access[order[mid]] += 1
    finally:
        agent.close()
    lat = np.array(latencies) * 1e3
    bf = np.array(brute) * 1e3
    common = {"n": n, "queries": len(qs), "k": 10, "setup": {"store_s": round(built["store_s"], 1),
              "index_build_s": round(built["index_build_s"], 1), "index_load_s": round(load_seconds, 2)},
              "load_1m": [l0, load()]}
    in_building = {f"p{q}_ms": round(float(np.percentile(np.array(built["latencies"]) * 1e3, q)), 3)
                   for q in (50, 95)}
    baseline_latency = {"what": "numpy brute force of the same score (cosine, BM25, neighbours) over every memory in memory",
                        "p50_ms": round(float(np.percentile(bf, 50)), 3),
                        "p95_ms": round(float(np.percentile(bf, 95)), 3)}
    p50, p95, r10 = float(np.percentile(lat, 50)), float(np.percentile(lat, 95)), float(np.mean(overlap))
    emit({"measurement": "recall_p50_ms", "value": round(p50, 3), **common, "baseline": baseline_latency,
          "in_building_process": in_building["p50_ms"], "target": "<= 3 ms", "meets_target": p50 <= 3.0})
    emit({"measurement": "recall_p95_ms", "value": round(p95, 3), **common, "baseline": baseline_latency,
          "in_building_process": in_building["p95_ms"], "target": "<= 10 ms", "meets_target": p95 <= 10.0})
    emit({"measurement": "recall_at_10", "value": round(r10, 4), **common,
          "baseline": {"what": "top-10 of the ANN index by cosine alone, without the over-fetch and re-rank",
                       "value": round(float(np.mean(ann_overlap)), 4)},
          "target": ">= 0.98 against the exact ranking of the same score", "meets_target": r10 >= 0.98})


def timed_recalls(agent: Agent, qs: np.ndarray, words: list[str]) -> tuple[list[float], list[list[str]]]:
    """Each recall's seconds and the ids it returned."""
    latencies, answers = [], []
    for q, query in zip(qs, words):
        t = time.perf_counter()
        hits = agent.recall(query, k=10, vector=q, min_score=0.0)
        latencies.append(time.perf_counter() - t)
        answers.append([h.memory.id for h in hits])
    return latencies, answers


class Bm25:
    """The lexical share of every memory, written out plainly (dense numpy, no index)."""

    def __init__(self, docs: list[list[str]]):
        vocab: dict[str, int] = {}
        rows, cols, counts = [], [], []
        for i, doc in enumerate(docs):
            for word in set(doc):
                rows.append(i)
                cols.append(vocab.setdefault(word, len(vocab)))
                counts.append(doc.count(word))
        self.vocab, self.n = vocab, len(docs)
        self.postings: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        order = np.argsort(cols, kind="stable")
        rows_a, cols_a, counts_a = np.array(rows)[order], np.array(cols)[order], np.array(counts)[order]
        bounds = np.searchsorted(cols_a, np.arange(len(vocab) + 1))
        for c in range(len(vocab)):
            self.postings[c] = (rows_a[bounds[c]:bounds[c + 1]], counts_a[bounds[c]:bounds[c + 1]].astype(float))
        self.lengths = np.array([len(d) for d in docs], dtype=float)

    def shares(self, query: list[str]) -> np.ndarray:
        out, weight = np.zeros(self.n), 0.0
        for word in dict.fromkeys(query):
            rows, tf = self.postings.get(self.vocab.get(word, -1), (np.zeros(0, int), np.zeros(0)))
            idf = np.log(1 + (self.n - len(rows) + 0.5) / (len(rows) + 0.5))
            weight += idf
            out[rows] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[rows] / self.lengths.mean()))
        return out / weight if weight else out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="memories in the batch store (default 10000)")
    parser.add_argument("--recall-n", type=int, default=100_000, help="memories to recall over (default 100000)")
    parser.add_argument("--queries", type=int, default=300, help="recall queries (default 300)")
    parser.add_argument("--only", choices=["store", "recall"], action="append",
                        help="run only this measurement (repeatable)")
    parser.add_argument("--workdir", help="keep the databases in this folder (default: a temporary one, removed)")
    args = parse_args(parser, argv, QUICK)
    chosen = set(args.only or ["store", "recall"])
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="cmem-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if "store" in chosen:
            bench_batch_store(work, args.n)
        if "recall" in chosen:
            bench_recall(work, args.recall_n, args.queries)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
