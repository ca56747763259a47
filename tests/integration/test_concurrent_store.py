"""Dedup under concurrency: processes storing the same texts at once reinforce, never duplicate."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from collective.agent import Agent
from collective.embed import HashEmbedder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STORER = """
    import os, sys, time
    from collective.agent import Agent
    from collective.embed import HashEmbedder
    home, go, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Agent.open("earth-1", home=home, embedder=HashEmbedder(64)) as agent:
        while not os.path.exists(go):
            time.sleep(0.01)
        for i in range(n):
            agent.store(f"the relay on mast {i} was reset at dawn")
    print("done")
"""


def storm(home, *, processes: int, texts: int) -> list[subprocess.CompletedProcess]:
    """`processes` children store the same `texts` texts, in the same order, from one signal."""
    go = home / "go"
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(STORER), str(home), str(go), str(texts)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(processes)]
    time.sleep(1.0)  # let every child open the agent before the race starts
    go.touch()
    outputs = [p.communicate(timeout=600) for p in procs]
    return [subprocess.CompletedProcess(p.args, p.returncode, out, err) for p, (out, err) in zip(procs, outputs)]


def test_four_processes_storing_the_same_fifty_texts_make_fifty_memories(home, engine):
    Agent.init("earth-1", home=home, embedder=HashEmbedder(64)).close()
    for child in storm(home, processes=4, texts=50):
        assert child.returncode == 0 and child.stdout.strip() == "done", child.stderr[-2000:]
    with Agent.open("earth-1", home=home, embedder=HashEmbedder(64)) as agent:
        rows = agent.repo.select("memories", columns=("content", "amplitude", "sync_version"))
        assert len(rows) == 50
        assert len({r["content"] for r in rows}) == 50
        # every store counted: each text was written once and reinforced three times
        assert sum(r["sync_version"] for r in rows) == 50 * 4
        assert agent.repo.query("SELECT * FROM dolt_status") == []
