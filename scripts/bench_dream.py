"""Benchmark: dream cycles at scale.

Prints one JSON line: full runs at 10k and 100k memories (jobs=1 and jobs=2, both
left for review so each starts from the same state), an incremental run at 100k
after 1% of the memories changed, and the time ratio 100k / 10k. The baseline, in
the same run: the same stages all-pairs (every memory compared with every other)
in one partition, at 2k memories, against the ANN-partitioned run at 2k.

Memories come with explicit vectors (clustered: topics of agreeing texts, some
contradicting), stored in bulk; each agent's index and the judge's analyses of its
texts are built before the runs, as an agent that recalls keeps them (setup_s).
Nothing is kept from one invocation to the next. Targets: full at 100k <= 120 s;
incremental with 1% changed at 100k <= 5 s; 100k / 10k <= 15.

    python scripts/bench_dream.py                       # 2k baseline, 10k, 100k
    python scripts/bench_dream.py --sizes 2000 10000    # a quicker look
    python scripts/bench_dream.py --quick               # 100 baseline, 200: seconds
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import numpy as np

from collective.agent import Agent, MemoryInput
from collective.model import utcnow

from benchkit import VectorsOnly, parse_args

OBJECTS = ["Coolant pump", "Rover", "Airlock", "Solar array", "Water valve", "Drill", "Heat exchanger"]
STATES = [("is running", "is not running"), ("is sealed", "is not sealed"), ("passed its inspection",
                                                                            "failed its inspection")]
PER_TOPIC = 10
BATCH = 10_000
QUICK = {"sizes": [200], "baseline": 100}


def memories(rng: np.random.Generator, n: int, dim: int) -> list[MemoryInput]:
    """n memories on n / PER_TOPIC topics: most members agree, about one in ten contradicts."""
    topics = max(n // PER_TOPIC, 1)
    centres = rng.standard_normal((topics, dim)).astype(np.float32)
    which = np.arange(n) % topics
    vectors = centres[which] + rng.standard_normal((n, dim)).astype(np.float32) * 0.05
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    out = []
    for k in range(n):
        t = int(which[k])
        state = STATES[t % len(STATES)][1 if rng.random() < 0.1 else 0]
        out.append(MemoryInput(f"{OBJECTS[t % len(OBJECTS)]} {t} {state}, log {chr(65 + k // topics % 26)}",
                               vector=vectors[k], importance=float(rng.uniform(0.3, 0.9))))
    return out


def build(home: Path, name: str, n: int, dim: int, seed: int, toml: str = "") -> tuple[Agent, dict]:
    (home / name).mkdir()
    if toml:
        (home / name / "cmem.toml").write_text(toml)
    agent = Agent.init("dreamer", home=home / name, embedder=VectorsOnly(dim, "bench-dream-v1"))
    rng = np.random.default_rng(seed)
    items = memories(rng, n, dim)
    clock = time.perf_counter()
    for start in range(0, n, BATCH):
        agent.store_many(items[start:start + BATCH])
    stored = time.perf_counter() - clock
    clock = time.perf_counter()
    agent.prepare()
    return agent, {"store": round(stored, 1), "index_and_analyses": round(time.perf_counter() - clock, 1)}


def change(agent: Agent, count: int) -> None:
    """Change `count` memories (their amplitude), in one commit, as a pull touching them would."""
    rng = np.random.default_rng(count)
    ids = sorted(r["id"] for r in agent.tables.memories.rows(columns=("id",)))
    with agent.repo.transaction():
        for memory_id in rng.choice(ids, size=count, replace=False).tolist():
            agent.tables.memories.set(memory_id, amplitude=float(rng.uniform(0.3, 0.9)))
        agent.repo.commit(f"{count} memories changed", author=agent.agent_id)


def timed(agent: Agent, **kwargs) -> tuple[float, dict]:
    clock = time.perf_counter()
    report = agent.dream(**kwargs)
    return round(time.perf_counter() - clock, 3), report


def full_runs(home: Path, n: int, dim: int) -> dict:
    agent, setup = build(home, f"full-{n}", n, dim, seed=n)
    try:
        now = utcnow()  # both runs as of one moment, so their results can be compared
        one_s, one = timed(agent, full=True, jobs=1, review=True, now=now)
        two_s, two = timed(agent, full=True, jobs=2, review=True, now=now)
        same = all(agent.repo.scalar("SELECT dolt_hashof_table(?, ?)", (t, one["branch"]))
                   == agent.repo.scalar("SELECT dolt_hashof_table(?, ?)", (t, two["branch"]))
                   for t in ("memories", "skip_links"))
        out = {"n": n, "setup_s": setup, "full_jobs1_s": one_s, "full_jobs2_s": two_s, "identical": same,
               "stages_s": one["seconds"], "counts": one["counts"]}
        if n >= 100_000 or n == max_size:
            merged_s, _ = timed(agent, full=True, jobs=2)
            change(agent, n // 100)
            inc_s, inc = timed(agent, jobs=2)
            out.update({"full_merged_s": merged_s, "incremental_1pct_s": inc_s,
                        "incremental_counts": {k: inc["counts"][k] for k in ("selected", "changed", "neighbours")},
                        "incremental_stages_s": inc["seconds"]})
        return out
    finally:
        agent.close()


def baseline(home: Path, n: int, dim: int) -> dict:
    """The same stages all-pairs in one partition: every memory's neighbours are all the others."""
    agent, _ = build(home, "all-pairs", n, dim, seed=n, toml=f"[dream]\nneighbours = {n}\ncluster_max = {n}\n")
    try:
        all_pairs_s, report = timed(agent, full=True, jobs=1, review=True)
    finally:
        agent.close()
    agent, _ = build(home, "partitioned", n, dim, seed=n)
    try:
        partitioned_s, _ = timed(agent, full=True, jobs=1, review=True)
    finally:
        agent.close()
    return {"n": n, "all_pairs_s": all_pairs_s, "partitioned_s": partitioned_s,
            "speedup": round(all_pairs_s / max(partitioned_s, 1e-9), 1), "all_pairs_pairs": report["counts"]["pairs"]}


max_size = 0


def main(argv: list[str] | None = None) -> dict:
    global max_size
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--baseline", type=int, default=2_000)
    parser.add_argument("--dim", type=int, default=384)
    args = parse_args(parser, argv, QUICK)
    max_size = max(args.sizes)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        result: dict = {"bench": "dream", "baseline": baseline(home, args.baseline, args.dim)}
        result["runs"] = [full_runs(home, n, args.dim) for n in args.sizes]
    runs = {r["n"]: r for r in result["runs"]}
    if 10_000 in runs and 100_000 in runs:
        result["ratio_100k_10k"] = round(runs[100_000]["full_jobs1_s"] / runs[10_000]["full_jobs1_s"], 1)
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
