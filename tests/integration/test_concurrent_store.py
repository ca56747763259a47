"""Dedup under concurrency: processes storing the same texts at once reinforce, never duplicate."""

from __future__ import annotations

from collections import Counter

from collective.agent import Agent
from collective.embedders import HashEmbedder
from scripts_support import load_script


def reliability():
    """scripts/reliability.py, whose storm this test runs as it is."""
    return load_script("reliability")


def test_four_processes_storing_the_same_fifty_texts_make_fifty_memories(tmp_path, engine):
    counts: Counter = Counter()
    home = reliability().store_storm(tmp_path, counts, processes=4, texts=50)
    assert counts["tracebacks"] == counts["failed_stores"] == 0
    assert counts["duplicate_memories"] == counts["lost_memories"] == 0
    with Agent.open("earth-1", home=home, embedder=HashEmbedder(64)) as agent:
        rows = agent.repo.select("memories", columns=("content", "sync_version"))
        assert len(rows) == len({r["content"] for r in rows}) == 50
        # every store counted: each text was written once and reinforced three times
        assert sum(r["sync_version"] for r in rows) == 50 * 4
        assert agent.repo.query("SELECT * FROM dolt_status") == []
