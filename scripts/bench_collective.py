"""Benchmark: a collective sync round, N agents of M memories each on one commons.

Every agent stores its M memories (one batch), pushes, then pulls every peer in one
`pull` (as `cmem pull` does), one agent after another, as on one machine. One JSON
line per N (`--agents 5,10,20`): store, push and pull-round seconds; per pull the
mean, the slowest, and the new memories each took; and the per-pull cost per new
memory against the smallest N's (`growth_per_new_vs_smallest_n`), so a cost that
grows faster than the memories taken shows.

What the agents know, per agent of M (10% S, 5% C, 5% O, the rest private):
  - S facts of its own that its next peer stores word for word (identical texts,
    identical vectors) and the one after it in other words (a paraphrase near them);
  - C facts of its own that the previous agent denies (a contradiction);
  - O facts of its own ("X is assigned to Ada") that the previous agent states
    with another object ("... to Boris"): near vectors, distinct facts;
  - the rest private, each on a topic of its own.
So M = 3S + 2C + 2O + private. Texts and vectors are seeded and deterministic; the
vectors are explicit, drawn around one centre per topic (a real embedder stores
under 300 memories a second here, which would dwarf the sync: `"vectors"` in the
line says so).

The baseline (`baseline_single_peer_pull_s`): before the round, a copy of the
commons is taken and a fresh agent outside the round pulls one peer's M memories
from it. That is a pull's cost at its smallest, in the same run, on the same data;
`pull_per_new_vs_single_peer` compares the round's mean per-new-memory cost with it,
so a round that costs more per memory than one peer does shows. The push of every
agent is timed beside it (`push_s`).

    python scripts/bench_collective.py                       # 5, 10, 20 agents of 200
    python scripts/bench_collective.py --agents 20 --memories 1000 --profile late.prof
    python scripts/bench_collective.py --quick               # 3 agents of 20: seconds
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import sys
import time
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import numpy as np

from collective.agent import Agent, MemoryInput

from benchkit import VectorsOnly, parse_args, work_folder

MODEL_VERSION = "bench-collective-v1"
QUICK = {"agents": "3", "memories": 20}

OBJECTS = ["coolant pump", "rover", "airlock", "solar array", "water valve", "drill", "heat exchanger"]
# (statement, its paraphrase, its denial)
STATEMENTS = [("is safe to operate", "can be operated safely", "is not safe to operate"),
              ("is running", "is in operation", "is not running"),
              ("is sealed", "has been sealed shut", "is not sealed"),
              ("passed its inspection", "came through its inspection", "failed its inspection")]
CREW = ["Ada", "Boris", "Chen", "Dalia", "Emeka", "Farah", "Goran", "Hana"]
# noise per dimension around a topic's centre: a paraphrase lies further from it than a denial
# or another object does, as with a sentence embedder (cos to the centre ~0.87 / ~0.96 / ~0.98)
PARAPHRASE_SIGMA, DENIAL_SIGMA, OBJECT_SIGMA = 0.03, 0.015, 0.01


def subject(g: int) -> str:
    return f"{OBJECTS[g % len(OBJECTS)].capitalize()} {g} in module {chr(65 + g % 26)}"


class World:
    """Every agent's memories: topic g = agent * M + j, its centre row g of `centres`."""

    def __init__(self, n_agents: int, m: int, dim: int, seed: int):
        self.n, self.m = n_agents, m
        self.s, self.c, self.o = max(1, m // 10), max(1, m // 20), max(1, m // 20)
        self.private = m - 3 * self.s - 2 * self.c - 2 * self.o
        if self.private < 0 or n_agents < 3:
            raise SystemExit("need at least 3 agents and 20 memories each")
        self.rng = np.random.default_rng(seed)
        centres = self.rng.standard_normal((n_agents * m, dim), dtype=np.float32)
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)

    def near(self, g: int, sigma: float) -> np.ndarray:
        v = self.centres[g] + self.rng.standard_normal(self.centres.shape[1], dtype=np.float32) * sigma
        return v / np.linalg.norm(v)

    def memories(self, a: int) -> list[MemoryInput]:
        m, n, s, c, o = self.m, self.n, self.s, self.c, self.o
        own = lambda agent, j: (agent % n) * m + j  # noqa: E731
        out: list[tuple[str, np.ndarray]] = []
        for j in range(m - 2 * s - c - o):  # its own topics: shared, contested, object, private
            g = own(a, j)
            if s + c <= j < s + c + o:
                out.append((f"{subject(g)} is assigned to {CREW[g % len(CREW)]}", self.centres[g]))
            else:
                out.append((f"{subject(g)} {STATEMENTS[g % len(STATEMENTS)][0]}", self.centres[g]))
        for j in range(s):  # the previous agent's shared facts, word for word
            g = own(a - 1, j)
            out.append((f"{subject(g)} {STATEMENTS[g % len(STATEMENTS)][0]}", self.centres[g]))
        for j in range(s):  # the one before's, in other words
            g = own(a - 2, j)
            out.append((f"Confirmed: {subject(g).lower()} {STATEMENTS[g % len(STATEMENTS)][1]}",
                        self.near(g, PARAPHRASE_SIGMA)))
        for j in range(c):  # the next agent's contested facts, denied
            g = own(a + 1, s + j)
            out.append((f"{subject(g)} {STATEMENTS[g % len(STATEMENTS)][2]}", self.near(g, DENIAL_SIGMA)))
        for j in range(o):  # the next agent's assignments, to someone else
            g = own(a + 1, s + c + j)
            out.append((f"{subject(g)} is assigned to {CREW[(g + 1) % len(CREW)]}", self.near(g, OBJECT_SIGMA)))
        assert len(out) == m
        return [MemoryInput(text, vector=vector, importance=0.5) for text, vector in out]


def new_of(result: dict) -> int:
    return sum(p["summary"].get("new", 0) for p in result["peers"])


def copy_commons(root: Path, name: str) -> str:
    """The commons' file(s) as they stand, under another name: a baseline that leaves the round's untouched."""
    for path in root.glob("commons.db*"):
        shutil.copy2(path, root / path.name.replace("commons.db", name))
    return f"file://{root / name}"


def round_of(n_agents: int, args: argparse.Namespace, profile_last: bool) -> tuple[dict, cProfile.Profile | None]:
    world = World(n_agents, args.memories, args.dim, args.seed)
    embedder = VectorsOnly(args.dim, MODEL_VERSION)
    load_before = os.getloadavg()
    with work_folder(args.dir, f"{n_agents}-agents") as root:
        url = f"file://{root / 'commons.db'}"
        names = [f"agent-{i:02d}" for i in range(n_agents)]
        agents = []
        for name in names:
            agent = Agent.init(name, home=root / "home", embedder=embedder)
            agent.add_remote("origin", url)
            agents.append(agent)
        clock = time.perf_counter()
        for i, agent in enumerate(agents):
            agent.store_many(world.memories(i))
        store_s = time.perf_counter() - clock
        push_s = []
        for agent in agents:
            clock = time.perf_counter()
            agent.push("origin")
            push_s.append(time.perf_counter() - clock)

        # the baseline: one peer's M memories, on a copy of the commons as the round finds it
        observer = Agent.init("observer", home=root / "home", embedder=embedder)
        observer.add_remote("origin", copy_commons(root, "baseline.db"))
        clock = time.perf_counter()
        single = observer.pull("origin", peers=[names[0]])
        single_s = time.perf_counter() - clock
        single_new = new_of(single)
        observer.close()

        pulls, profiler = [], None
        round_clock = time.perf_counter()
        for i, agent in enumerate(agents):
            if profile_last and i == len(agents) - 1:
                profiler = cProfile.Profile()
                profiler.enable()
            clock = time.perf_counter()
            result = agent.pull("origin")
            seconds = time.perf_counter() - clock
            if profiler:
                profiler.disable()
            stages: dict[str, float] = {}
            for peer in result["peers"]:
                for stage, secs in peer["seconds"].items():
                    if stage != "fetch":  # one fetch per pull, repeated in every peer's report
                        stages[stage] = stages.get(stage, 0.0) + secs
            stages["fetch"] = result["peers"][0]["seconds"].get("fetch", 0.0) if result["peers"] else 0.0
            pulls.append({"s": seconds, "new": new_of(result), "peers": len(result["peers"]),
                          "cases_taken": (result.get("cases_taken") or {}).get("taken", 0), "stages": stages})
        round_s = time.perf_counter() - round_clock
        cases_held = len(agents[-1].tables.cases.all())
        for agent in agents:
            agent.close()
    load_after = os.getloadavg()

    secs = [p["s"] for p in pulls]
    news = [p["new"] for p in pulls]
    per_new_ms = [1000 * s / max(1, n) for s, n in zip(secs, news)]
    single_per_new_ms = 1000 * single_s / max(1, single_new)
    half = len(pulls) // 2
    stage_names = sorted({k for p in pulls for k in p["stages"]})
    out = {
        "bench": "collective", "agents": n_agents, "memories_each": args.memories, "dim": args.dim,
        "vectors": "explicit, seeded around one centre per topic",
        "facts_each": {"own_shared": world.s, "copied": world.s, "paraphrased": world.s, "contested": world.c,
                       "denied": world.c, "object": world.o, "other_object": world.o, "private": world.private},
        "store_s": round(store_s, 3), "store_per_s": round(n_agents * args.memories / store_s),
        "push_s": {"all": round(sum(push_s), 3), "mean": round(sum(push_s) / len(push_s), 3),
                   "max": round(max(push_s), 3)},
        "pull_round_s": round(round_s, 3),
        "pull_s": {"mean": round(sum(secs) / len(secs), 3), "max": round(max(secs), 3),
                   "slowest_agent": int(np.argmax(secs)), "first": round(secs[0], 3), "last": round(secs[-1], 3)},
        "pull_s_in_order": [round(s, 2) for s in secs],
        "new_per_pull": {"mean": round(sum(news) / len(news), 1), "min": min(news), "max": max(news)},
        "pull_ms_per_new": {"mean": round(sum(per_new_ms) / len(per_new_ms), 3),
                            "first_half": round(sum(per_new_ms[:half]) / max(1, half), 3),
                            "second_half": round(sum(per_new_ms[half:]) / max(1, len(pulls) - half), 3)},
        "pull_stages_mean_s": {k: round(sum(p["stages"].get(k, 0.0) for p in pulls) / len(pulls), 3)
                               for k in stage_names},
        "cases_taken_per_pull": [p["cases_taken"] for p in pulls],
        "baseline_single_peer_pull_s": round(single_s, 3),
        "baseline_single_peer_new": single_new,
        "pull_per_new_vs_single_peer": round((sum(per_new_ms) / len(per_new_ms)) / single_per_new_ms, 2),
        "load_avg_before": [round(x, 2) for x in load_before], "load_avg_after": [round(x, 2) for x in load_after],
        "cases_held_by_last_agent": cases_held,
        "target_pull_max_le_10s": max(secs) <= 10.0,
    }
    return out, profiler


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", default="5,10,20", help="agent counts, one round each (default 5,10,20)")
    parser.add_argument("--memories", type=int, default=200, help="memories each agent stores")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", help="keep each round's agents and commons in DIR/<N>-agents (default: a "
                        "temporary folder, removed afterwards)")
    parser.add_argument("--profile", help="write a cProfile of the largest round's last pull here and print its top lines")
    args = parse_args(parser, argv, QUICK)
    counts = sorted({int(n) for n in str(args.agents).split(",") if n.strip()})

    lines, smallest = [], None
    for n in counts:
        out, profiler = round_of(n, args, profile_last=bool(args.profile) and n == counts[-1])
        if smallest is None:
            smallest = out
        out["growth_per_new_vs_smallest_n"] = {
            "smallest_n": smallest["agents"],
            "new_per_pull": round(out["new_per_pull"]["mean"] / smallest["new_per_pull"]["mean"], 2),
            "pull_s": round(out["pull_s"]["mean"] / smallest["pull_s"]["mean"], 2),
            "ms_per_new": round(out["pull_ms_per_new"]["mean"] / smallest["pull_ms_per_new"]["mean"], 2)}
        print(json.dumps(out), flush=True)
        lines.append(out)
        if profiler:
            profiler.dump_stats(args.profile)
            pstats.Stats(args.profile, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
            pstats.Stats(args.profile, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    return lines


if __name__ == "__main__":
    main()
