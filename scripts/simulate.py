"""Long random histories of a collective, checked against its invariants
(docs/concepts/invariants.md). Prints one JSON line with --json, else a short summary.

Runs the state machine of tests/simulation/ (the same rules and checks as the pytest seeds)
through Hypothesis: seed K, then K+1, ... until --minutes have passed (one seed without
it). A history that meets a known fault (tests/simulation/known.py) goes on; one that
meets a new violation is shrunk to a short history, reported with its seed and steps.
The embedder is the real default one unless --embedder hash. Stores take their texts from
templates that know which texts contradict, and (--texts mixed, the default: a third of
them) from real text: our dev chats and the public corpora of scripts/merge_corpora.py
already in its cache (never downloaded here).

    .venv/bin/python scripts/simulate.py --agents 5 --steps 200 --seed 1 [--minutes 10] [--texts mixed] [--json]

The JSON: texts (the source) and corpora (the real ones drawn from), steps (commands run),
rounds, commands by kind (the rogue member's acts too, each also as KIND:idle when it found
nothing to act on), typed_errors (and typed_error_lines: each one's first message),
faults_injected, texts_stored (by kind: real, or a template's), violations by invariant (each
distinct one once per history), signatures (each violation kind with its first evidence),
known (the known faults met), failures ([{seed, error, steps}]), seeds run, seconds,
steps_per_second, simulated_minutes (the virtual clock's time over every history).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import collective  # noqa: E402,F401  (first: sqlite3 speaks Dolt)
from collective.embedders import HashEmbedder, default_embedder  # noqa: E402
from simulation.known import is_known, known  # noqa: E402
from simulation.machine import MAX_AGENTS, Tally  # noqa: E402
from simulation.runner import run_seed  # noqa: E402
from simulation.texts import SOURCES, real_texts  # noqa: E402


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=5, help=f"agents in each history (2 to {MAX_AGENTS})")
    parser.add_argument("--steps", type=int, default=200, help="at most this many rules a history")
    parser.add_argument("--seed", type=int, default=1, help="the first seed")
    parser.add_argument("--minutes", type=float, default=None, help="keep running seeds this long")
    parser.add_argument("--embedder", choices=("real", "hash"), default="real")
    parser.add_argument("--texts", choices=SOURCES, default="mixed",
                        help="where stores take their texts: templates (which know what contradicts what), "
                             "real (our dev chats and the cached public corpora of scripts/merge_corpora.py), "
                             "or mixed (a third real; the default)")
    parser.add_argument("--no-shrink", action="store_true", help="report a failing history as found")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args(argv)
    if not 2 <= args.agents <= MAX_AGENTS:
        parser.error(f"--agents must be within 2 and {MAX_AGENTS}")
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    return args


def workdir() -> Path:
    """Memory-backed where there is /dev/shm: the histories' commits then wait on no disk."""
    shm = Path("/dev/shm")
    usable = shm.is_dir() and os.access(shm, os.W_OK)
    return Path(tempfile.mkdtemp(prefix="cmem-simulate-", dir=shm if usable else None))


def simulate(args: argparse.Namespace) -> dict:
    embedder = default_embedder() if args.embedder == "real" else HashEmbedder(64)
    tally, failures, seeds = Tally(), [], []
    folder, started = workdir(), time.perf_counter()
    try:
        seed = args.seed
        while True:
            seeds.append(seed)
            failure = run_seed(seed, agents=(args.agents, args.agents), steps=args.steps, embedder=lambda: embedder,
                               tally=tally, is_known=is_known, workdir=folder, shrink=not args.no_shrink,
                               texts=args.texts)
            if failure:
                failures.append(failure)
            seed += 1
            if args.minutes is None or time.perf_counter() - started > args.minutes * 60:
                break
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    seconds = time.perf_counter() - started
    corpora = sorted(real_texts()) if SOURCES[args.texts] else []
    return {"agents": args.agents, "embedder": args.embedder, "texts": args.texts, "corpora": corpora,
            "seeds": [seeds[0], seeds[-1]], **tally.to_dict(),
            "known": sorted({known(s) for s in tally.signatures} - {None}), "failures": failures,
            "seconds": round(seconds, 1), "steps_per_second": round(tally.steps / seconds, 2)}


def main(argv=None) -> int:
    args = arguments(argv)
    result = simulate(args)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['steps']} steps ({result['steps_per_second']}/s) over seeds {result['seeds'][0]}.."
              f"{result['seeds'][1]}, {result['rounds']} full rounds, {result['simulated_minutes']} simulated minutes, "
              f"texts {result['texts']}{' from ' + ', '.join(result['corpora']) if result['corpora'] else ''}")
        print(f"violations by invariant: {result['violations'] or 'none'}")
        for signature, evidence in result["signatures"].items():
            print(f"  {'known' if is_known(signature) else 'NEW'}  {signature}: {evidence}")
        for failure in result["failures"]:
            print(f"failing seed {failure['seed']}: {failure['error']}")
            print("\n".join(f"    {step}" for step in failure["steps"]))
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
