"""Every scripts/bench_*.py runs at its --quick sizes and prints JSON lines, each with a
baseline: a benchmark that stopped running fails here, not on the day someone measures.

Found by glob, so a new benchmark is covered the day it lands. Only that it runs is
checked; its figures at these sizes say nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nats_servers import _require_nats
from scripts_support import load_script

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
BENCHES = sorted(SCRIPTS.glob("bench_*.py"))
# What a benchmark starts beside itself, found as the code finds it; without it the
# suite's own tests of that engine skip (or fail, under CMEM_REQUIRE_DOLT=1), and so does this.
NEEDS = {"bench_backends.py": "dolt", "bench_events.py": "nats-server"}


def benchkit():
    return load_script("benchkit")


def test_quick_sizes_replace_the_defaults_but_not_sizes_given():
    def parse(*argv: str) -> argparse.Namespace:
        parser = argparse.ArgumentParser()
        parser.add_argument("--n-local", type=int, default=100_000)
        parser.add_argument("--dim", type=int, default=384)
        return benchkit().parse_args(parser, list(argv), {"n_local": 300})
    assert (parse().n_local, parse().quick) == (100_000, False)
    assert (parse("--quick").n_local, parse("--quick").dim) == (300, 384)
    assert parse("--quick", "--n-local", "2000").n_local == 2000


def test_the_glob_finds_the_benchmarks():
    assert {"bench_store_recall.py", "bench_merge.py"} <= {p.name for p in BENCHES}
    assert set(NEEDS) <= {p.name for p in BENCHES}, "NEEDS names a benchmark that is gone"


@pytest.mark.parametrize("script", BENCHES, ids=lambda path: path.stem)
def test_quick_run_prints_json_lines_each_with_a_baseline(script, tmp_path, request):
    need = NEEDS.get(script.name)
    if need == "dolt":
        request.getfixturevalue("dolt_binary")
    elif need == "nats-server":
        _require_nats()
    # every temporary folder a benchmark makes lands in this test's own
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(script), "--quick"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{script.name} --quick exited {done.returncode}: {done.stderr[-3000:]}"
    lines = done.stdout.splitlines()
    assert lines, f"{script.name} --quick printed nothing"
    for line in lines:
        record = json.loads(line)
        assert isinstance(record, dict) and record, line
        assert {"bench", "measurement"} & set(record), f"{script.name}: a line names no measurement: {line}"
        assert any(key.startswith("baseline") for key in record), f"{script.name}: a line without a baseline: {line}"
