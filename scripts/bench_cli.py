#!/usr/bin/env python3
"""`cmem` commands from process start to exit. Prints one JSON line per command.

An agent made by `cmem init` (the default embedder, all-MiniLM-L6-v2) stores and
recalls short English sentences, each command a new process as a person or a script
runs it. Each line's baselines are measured in the same run, interleaved with the
command's runs so that all see the same load: `python -c pass` (the interpreter
alone) and `python -c "import collective"` (the package alone: doltlite loaded, so
sqlite3 speaks Dolt), both started the same way.

- cmem_store_p50_s: `cmem store TEXT` (embeds the text, signs, commits), target 0.25 s.
- cmem_recall_p50_s: `cmem recall QUERY` over the memories stored so far.
- cmem_status_p50_s: `cmem status`.

Beside each wall-clock p50, the p50 of the CPU time the process used (user and system,
all its threads): on a machine that other work shares, the wall clock counts the time
spent waiting for a core, the CPU time does not. The first run of each command is left
out (it warms the page cache and writes the .pyc files, as an installed package has them).

    python scripts/bench_cli.py            # 20 runs of each
    python scripts/bench_cli.py --quick    # 2 runs of each: seconds
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchkit import parse_args

QUICK = {"runs": 2}
TARGETS = {"store": 0.25}
SENTENCES = ["the coolant pump in module {i} is safe to operate", "valve R2-{i} on the coolant loop is open",
             "the crew of rover {i} returns before the dust storm", "hatch {i} of the habitat is sealed"]


def load() -> float:
    return round(os.getloadavg()[0], 2)


def clean_env(home: Path) -> dict:
    """The caller's environment less what would change what is measured: no CMEM_ setting
    of the caller's, .pyc files written, doltlite loaded afresh in each process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CMEM_")}
    for name in ("PYTHONDONTWRITEBYTECODE", "_DOLTLITE_BOOTSTRAPPED"):
        env.pop(name, None)
    env["CMEM_HOME"] = str(home)
    return env


def timed(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(cmem: str, i: int) -> dict[str, list[str]]:
    text = SENTENCES[i % len(SENTENCES)].format(i=i)
    return {"store": [cmem, "store", text], "recall": [cmem, "recall", "is the coolant pump safe"],
            "status": [cmem, "status"]}


def measure(work: Path, runs: int) -> dict[str, list[tuple[float, float]]]:
    cmem = str(Path(sys.executable).with_name("cmem"))
    env = clean_env(work / "home")
    subprocess.run([cmem, "init", "--agent", "bench-cli"], env=env, check=True, stdout=subprocess.DEVNULL)
    baselines = {"python -c pass": [sys.executable, "-c", "pass"],
                 "python -c 'import collective'": [sys.executable, "-c", "import collective"]}
    for argv in [*commands(cmem, 0).values(), *baselines.values()]:  # warm-up: page cache, .pyc files
        timed(argv, env)
    times: dict[str, list[tuple[float, float]]] = {}
    for i in range(1, runs + 1):  # interleaved, so that every series sees the same load
        for name, argv in [*commands(cmem, i).items(), *baselines.items()]:
            times.setdefault(name, []).append(timed(argv, env))
    return times


def p50(series: list[tuple[float, float]], which: int = 0) -> float:
    return round(statistics.median(s[which] for s in series), 3)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each command (default 20)")
    args = parse_args(parser, argv, QUICK)
    work = Path(tempfile.mkdtemp(prefix="cmem-bench-cli-"))
    try:
        l0 = load()
        times = measure(work, args.runs)
        l1 = load()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    baselines = {name: {"p50_s": p50(series), "cpu_p50_s": p50(series, 1)}
                 for name, series in times.items() if name.startswith("python")}
    for command in ("store", "recall", "status"):
        series = times[command]
        walls = sorted(wall for wall, _ in series)
        record = {"measurement": f"cmem_{command}_p50_s", "value": p50(series), "cpu_p50_s": p50(series, 1),
                  "runs": len(series), "min_s": round(walls[0], 3), "max_s": round(walls[-1], 3),
                  "baseline": {"what": "the interpreter and the package alone, started the same way, "
                                       "interleaved with the command's runs", **baselines},
                  "embedder": "all-MiniLM-L6-v2 (the default)", "load_1m": [l0, l1], "cpus": os.cpu_count()}
        if command in TARGETS:
            record.update(target=f"<= {TARGETS[command]} s", meets_target=record["value"] <= TARGETS[command])
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
