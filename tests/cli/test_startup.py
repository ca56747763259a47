"""What a `cmem store` loads: the store path, not the pull machinery, the judge's rules or
the services a store never calls (each costs every command's start its import time)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

# Loaded only by what uses them (the pull, a verdict, a promotion, a review, the judge). A store
# asks the index for its own memories it may contradict (collective.contradictions), and loads
# the merge's comparator and the judge only when one lies near.
NOT_FOR_A_STORE = ("collective.exchange", "collective.merge", "collective.promotion", "collective.quarantine.service",
                   "collective.quarantine.disputes", "collective.judge.rules", "collective.judge.readers",
                   "collective.dream", "collective.sync", "collective.review", "collective.mcp")

PROBE = textwrap.dedent("""
    import json, sys
    from collective.cli.common import open_agent
    from collective.agent import Agent
    from collective.embedders import HashEmbedder
    Agent.init("earth-1", home=sys.argv[1], embedder=HashEmbedder(16)).close()
    import collective.cli  # every command defined, as `cmem` has them
    with open_agent(sys.argv[1], "earth-1") as agent:
        agent.store("the coolant pump is safe", vector=[1.0] * 16)
    print(json.dumps(sorted(sys.modules)))
""")


def test_a_store_loads_neither_the_pull_nor_the_judge(tmp_path):
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "home")], capture_output=True, text=True,
                          check=True)
    loaded = json.loads(done.stdout)
    assert "collective.writer" in loaded
    assert [m for m in loaded if any(m == name or m.startswith(name + ".") for name in NOT_FOR_A_STORE)] == []
