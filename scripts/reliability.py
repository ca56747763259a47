"""Reliability under crashes, races and hostile input. Prints one JSON line.

- kill -9 at a random moment while a process stores memories, one commit each (--store-trials):
  every store that returned must still be there, and the database must open, read and recall;
- kill -9 at a random moment while a process pulls a peer (--pull-trials): the pull is all or
  nothing (none of the peer's memories, or all of them in one new commit), and the next pull
  brings whatever the killed one did not;
- the concurrent-store storm: 4 processes store the same 50 texts at once -> exactly 50 memories;
- the concurrent-pull storm: two agents pull at once, round after round, while their peers open
  disputes that each pull pushes to the shared quarantine branch; every pull must succeed;
- the fuzz over every command's arguments (tests/cli/test_fuzz.py).

Failure counts: corrupt_databases, partial_pulls, lost_memories, duplicate_memories,
failed_pulls, failed_stores, tracebacks, unwanted_writes, bad_exit_codes; all must be 0.
Everything runs on loopback and in a temporary folder; the embedder is the hashing one.

    .venv/bin/python scripts/reliability.py [--store-trials 50] [--pull-trials 50] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import collective  # noqa: E402,F401  (first: sqlite3 speaks Dolt)
from collective.agent import Agent  # noqa: E402
from collective.embedders import HashEmbedder  # noqa: E402
from collective.errors import CollectiveError  # noqa: E402

DIM = 64
PEER_TEXTS = [f"sensor array {i} on the {side} ridge reads {i * 7} millibar at dawn"
              for i in range(20) for side in ("north", "south")]

OPEN = """
    import sys
    from collective.agent import Agent
    from collective.embedders import HashEmbedder
    home, agent_id = sys.argv[1], sys.argv[2]
    agent = Agent.open(agent_id, home=home, embedder=HashEmbedder(64))
    print("ready", flush=True)
"""

STORER = OPEN + """
    for i in range(10**6):
        print(agent.store(f"{sys.argv[3]} note {i}: the hatch cycled {i} times").memory.id, flush=True)
"""

PULLER = OPEN + """
    agent.pull("origin")
    agent.close()
    print("done", flush=True)
"""

GO_STORER = """
    import os, sys, time
    from collective.agent import Agent
    from collective.embedders import HashEmbedder
    home, go, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Agent.open("earth-1", home=home, embedder=HashEmbedder(64)) as agent:
        while not os.path.exists(go):
            time.sleep(0.01)
        for i in range(n):
            agent.store(f"the relay on mast {i} was reset at dawn")
    print("done", flush=True)
"""


def spawn(code: str, *args: str) -> subprocess.Popen:
    """A child running `code` (python -c), or the CLI when code is "cmem"."""
    start = ["-m", "collective.cli"] if code == "cmem" else ["-c", textwrap.dedent(code)]
    return subprocess.Popen([sys.executable, *start, *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_at(child: subprocess.Popen, delay: float, *, after_ready: bool = True) -> tuple[list[str], str]:
    """kill -9 `delay` seconds after the child said it is ready (or after it started: while it
    imports and opens the agent); its output lines and stderr."""
    if not after_ready or child.stdout.readline().strip() == "ready":
        time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    out, err = child.communicate(timeout=60)
    return [line.strip() for line in out.splitlines() if line.strip() not in ("", "ready", "done")], err


def survey(home: Path, agent_id: str) -> dict | None:
    """What the database holds after a crash, or None when it cannot be opened, read and recalled."""
    try:
        with Agent.open(agent_id, home=home, embedder=HashEmbedder(DIM)) as agent:
            rows = agent.repo.select("memories", columns=("id", "origin_agent"))
            dirty = [r for r in agent.repo.query("SELECT * FROM dolt_status") if not r["table_name"].startswith("local_")]
            agent.recall("hatch cycled at dawn", k=3)
            return {"ids": {r["id"] for r in rows}, "origins": Counter(r["origin_agent"] for r in rows),
                    "head": agent.repo.head(agent.branch), "dirty": dirty}
    except (CollectiveError, OSError, ValueError, RuntimeError):
        return None


def store_trials(base: Path, trials: int, rng: random.Random, counts: Counter) -> None:
    home = base / "store-kill"
    home.mkdir()
    Agent.init("earth-1", home=home, embedder=HashEmbedder(DIM)).close()
    for trial in range(trials):
        opening = rng.random() < 0.2  # now and then while it starts and opens the agent
        delay = rng.uniform(0.2, 1.5) if opening else rng.uniform(0.0, 0.6)
        committed, err = kill_at(spawn(STORER, str(home), "earth-1", f"t{trial}"), delay, after_ready=not opening)
        counts["tracebacks"] += "Traceback" in err
        found = survey(home, "earth-1")
        counts["store_trials"] += 1
        if found is None or found["dirty"]:
            counts["corrupt_databases"] += 1
            continue
        counts["lost_memories"] += len(set(committed) - found["ids"])
        counts["stores_before_kill"] += len(committed)


def pull_world(base: Path) -> tuple[Path, float]:
    """A home where mars-1 pushed PEER_TEXTS to a commons that earth-1 has not pulled yet,
    kept pristine; and how long one pull of it takes in a child process."""
    home = base / "pull-pristine"
    home.mkdir()
    commons = f"file://{base / 'commons.db'}"
    with Agent.init("earth-1", home=home, embedder=HashEmbedder(DIM)) as earth:
        earth.store_many([{"content": f"hatch {i} cycled at dawn without fault"} for i in range(10)])
        earth.add_remote("origin", commons)
    with Agent.init("mars-1", home=home, embedder=HashEmbedder(DIM)) as mars:
        for start in range(0, len(PEER_TEXTS), 10):
            mars.store_many([{"content": t} for t in PEER_TEXTS[start:start + 10]])
        mars.add_remote("origin", commons)
        mars.push("origin")
    timing = base / "pull-timing"
    shutil.copytree(home, timing)
    child = spawn(PULLER, str(timing), "earth-1")
    child.stdout.readline()
    started = time.monotonic()
    out, err = child.communicate(timeout=300)
    if child.returncode != 0:
        raise SystemExit(f"a plain pull failed: {err.strip().splitlines()[-1:]}")
    return home, time.monotonic() - started


def pull_trials(base: Path, trials: int, rng: random.Random, counts: Counter) -> None:
    pristine, seconds = pull_world(base)
    counts["pull_ms"] = round(seconds * 1000)
    before = survey(pristine, "earth-1")
    peer = len(PEER_TEXTS)
    for trial in range(trials):
        home = base / f"pull-kill-{trial}"
        shutil.copytree(pristine, home)
        _, err = kill_at(spawn(PULLER, str(home), "earth-1"), rng.uniform(0.0, seconds * 1.2))
        counts["tracebacks"] += "Traceback" in err
        counts["pull_trials"] += 1
        found = survey(home, "earth-1")
        if found is None or found["dirty"]:
            counts["corrupt_databases"] += 1
            continue
        held = found["origins"]["mars-1"]
        moved = found["head"] != before["head"]
        counts["partial_pulls"] += not ((held == 0 and not moved) or (held == peer and moved))
        counts["pulls_completed_before_kill"] += held == peer
        with Agent.open("earth-1", home=home, embedder=HashEmbedder(DIM)) as agent:
            agent.pull("origin")
            counts["lost_memories"] += peer - agent.tables.memories.count(origin_agent="mars-1")
        shutil.rmtree(home)


def store_storm(base: Path, counts: Counter, *, processes: int = 4, texts: int = 50) -> Path:
    """`processes` children store the same `texts` texts, in the same order, from one signal
    (tests/integration/test_concurrent_store.py runs this too); returns the home."""
    home = base / "store-storm"
    home.mkdir()
    Agent.init("earth-1", home=home, embedder=HashEmbedder(DIM)).close()
    go = home / "go"
    children = [spawn(GO_STORER, str(home), str(go), str(texts)) for _ in range(processes)]
    time.sleep(1.5)
    go.touch()
    for child in children:
        _, err = child.communicate(timeout=600)
        counts["tracebacks"] += "Traceback" in err
        counts["failed_stores"] += child.returncode != 0
    with Agent.open("earth-1", home=home, embedder=HashEmbedder(DIM)) as agent:
        held = agent.tables.memories.count()
    counts["duplicate_memories"] += max(0, held - texts)
    counts["lost_memories"] += max(0, texts - held)
    counts["storm_stores"] += processes * texts
    return home


def pull_storm(base: Path, rounds: int, counts: Counter) -> None:
    """earth-1 and earth-2 run `cmem pull` at once while mars-1 and venus-1 disagree about a new
    pump each round: both pulls open the same case and push collective/quarantine, racing."""
    home = base / "pull-storm"
    home.mkdir()
    commons = f"file://{base / 'storm-commons.db'}"
    for name in ("earth-1", "earth-2", "mars-1", "venus-1"):
        with Agent.init(name, home=home, embedder=HashEmbedder(DIM)) as agent:
            agent.add_remote("origin", commons)
    for r in range(rounds):
        for name, verb in (("mars-1", "is"), ("venus-1", "is not")):
            with Agent.open(name, home=home, embedder=HashEmbedder(DIM)) as agent:
                agent.store(f"The coolant pump in module {r} {verb} safe to operate")
                agent.push("origin")
        children = [spawn("cmem", "pull", "origin", "--agent", name, "--home", str(home))
                    for name in ("earth-1", "earth-2")]
        for child in children:
            _, err = child.communicate(timeout=600)
            counts["storm_pulls"] += 1
            counts["tracebacks"] += "Traceback" in err
            counts["failed_pulls"] += child.returncode != 0
            counts["remote_refs_changed"] += "remote refs changed" in err
    with Agent.open("earth-1", home=home, embedder=HashEmbedder(DIM)) as agent:
        counts["storm_cases"] += len(agent.cases())


def fuzz(base: Path, examples: int, counts: Counter) -> None:
    report = base / "fuzz.json"
    env = {**os.environ, "CMEM_FUZZ_EXAMPLES": str(examples), "CMEM_FUZZ_REPORT": str(report)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/cli/test_fuzz.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    found = json.loads(report.read_text()) if report.exists() else {}
    counts["fuzz_invocations"] += found.get("invocations", 0)
    for key in ("tracebacks", "unwanted_writes", "bad_exit_codes"):
        counts[key] += found.get(key, 0)
    counts["fuzz_failures"] += done.returncode != 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store-trials", type=int, default=50, help="kill -9 during stores, this many times")
    parser.add_argument("--pull-trials", type=int, default=50, help="kill -9 during pulls, this many times")
    parser.add_argument("--storm-rounds", type=int, default=10, help="rounds of two agents pulling at once")
    parser.add_argument("--fuzz-examples", type=int, default=12, help="fuzzed invocations per command")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts: Counter = Counter()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cmem-reliability-") as tmp:
        base = Path(tmp)
        store_trials(base, args.store_trials, rng, counts)
        pull_trials(base, args.pull_trials, rng, counts)
        store_storm(base, counts)
        pull_storm(base, args.storm_rounds, counts)
        fuzz(base, args.fuzz_examples, counts)
    failures = ("corrupt_databases", "partial_pulls", "lost_memories", "duplicate_memories", "failed_pulls",
                "failed_stores", "tracebacks", "unwanted_writes", "bad_exit_codes", "fuzz_failures")
    trials = {k: counts[k] for k in ("store_trials", "pull_trials", "storm_stores", "storm_pulls",
                                     "fuzz_invocations")}
    print(json.dumps({"trials": trials, **{k: counts[k] for k in failures},
                      "remote_refs_changed": counts["remote_refs_changed"],
                      "stores_before_kill": counts["stores_before_kill"],
                      "pulls_completed_before_kill": counts["pulls_completed_before_kill"],
                      "storm_cases": counts["storm_cases"], "pull_ms": counts["pull_ms"], "seed": args.seed,
                      "seconds": round(time.monotonic() - started, 1)}))


if __name__ == "__main__":
    main()
