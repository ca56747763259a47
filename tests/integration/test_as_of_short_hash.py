"""`--as-of` takes the short hash `cmem log` prints: following the docs, a commit copied from
the log was refused as "neither a commit, a branch nor a timestamp"."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def logged(home, cmem):
    assert cmem("init", "--agent", "earth-1").exit_code == 0
    assert cmem("store", "The coolant pump in module C is safe to operate", "--agent", "earth-1").exit_code == 0
    before = cmem("log", "-n", "1", "--agent", "earth-1").stdout.split()[0]  # the short hash, as printed
    assert cmem("store", "Rover 5 battery was replaced on Tuesday", "--agent", "earth-1").exit_code == 0
    return before


def test_recall_as_of_the_short_hash_the_log_prints(logged, cmem):
    then = json.loads(cmem("recall", "rover battery", "--as-of", logged, "--agent", "earth-1", "--json").stdout)
    now = json.loads(cmem("recall", "rover battery", "--as-of", "HEAD", "--agent", "earth-1", "--json").stdout)
    assert "Rover 5" not in json.dumps(then["hits"]) and "Rover 5" in now["hits"][0]["content"]


def test_a_short_hash_of_no_commit_and_a_malformed_one_are_bad_input(logged, cmem):
    for ref in ("zzzzzzzz", "abc"):
        done = cmem("recall", "pump", "--as-of", ref, "--agent", "earth-1")
        assert done.exit_code == 2 and "as-of" in done.stderr and len(done.stderr.strip().splitlines()) == 1
