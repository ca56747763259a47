"""doltlite and Dolt side by side: store throughput, recall latency, the 10k-into-100k pull.

Runs bench_store_recall.py (store and recall) and bench_merge.py once per
engine, in child processes whose new agents are created on that engine
(CMEM_BACKEND; Dolt agents on one managed sql-server via CMEM_DOLT_SERVER),
and prints one JSON line per measurement with both engines' numbers: the
embedded default is the baseline of the same run.

    python scripts/bench_backends.py            # 10k store, 100k recall, 10k into 100k
    python scripts/bench_backends.py --quick    # each child's --quick: seconds
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from collective.store.dolt_process import ManagedDoltServer, find_dolt  # noqa: E402

from benchkit import parse_args  # noqa: E402


def run(script: str, args: list[str], env: dict) -> list[dict]:
    result = subprocess.run([sys.executable, str(HERE / script), *args], env=env, capture_output=True,
                            text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{script} failed on {env.get('CMEM_BACKEND')}: {result.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def measurements(engine: str, quick: bool, env: dict) -> dict[str, dict]:
    env = {**env, "CMEM_BACKEND": engine}
    quick_args = ["--quick"] if quick else []
    store_args = ["--only", "store", "--only", "recall", *quick_args]
    out = {}
    for record in run("bench_store_recall.py", store_args, env) + run("bench_merge.py", quick_args, env):
        out[record.get("measurement") or record.get("bench", "?")] = record
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    args = parse_args(parser, argv, {})
    find_dolt()
    with tempfile.TemporaryDirectory(prefix="cmem-bench-backends-") as work:
        server = ManagedDoltServer(Path(work) / "dolt-server")
        try:
            env = {**os.environ, "CMEM_DOLT_SERVER": server.url()}
            env.pop("CMEM_HOME", None)
            results = {}
            for engine in ("doltlite", "dolt"):
                started = time.perf_counter()
                results[engine] = measurements(engine, args.quick, env)
                results[engine]["_seconds"] = time.perf_counter() - started
        finally:
            server.stop()
    for name in results["doltlite"]:
        if name.startswith("_"):
            continue
        print(json.dumps({"bench": "backends", "measure": name, "baseline": "doltlite",
                          "doltlite": results["doltlite"][name], "dolt": results["dolt"].get(name)}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
