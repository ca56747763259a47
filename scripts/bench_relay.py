"""The relay's cost: one window's copies of every Earth branch to Mars, against the same
branches pushed straight to Mars's commons by their agents (the baseline, same run).

Earth: N agents with M memories each (384-dim vectors from the hash embedder, so the
embedder costs nothing); Mars: one agent. The relay runs on a virtual clock with no
delay: one step departs (fetch, priority check, pin), the next lands (compare-and-swap
pushes). Prints one JSON line.

    python scripts/bench_relay.py [--agents 10] [--memories 1000]
    python scripts/bench_relay.py --quick    # 2 agents of 20 memories: seconds
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import collective  # noqa: E402,F401  (first: sqlite3 speaks Dolt)
from collective.agent import Agent  # noqa: E402
from collective.embedders import HashEmbedder  # noqa: E402
from collective.sync.clock import VirtualClock  # noqa: E402
from collective.sync.link import Link, Site  # noqa: E402
from collective.sync.relay import Relay  # noqa: E402

from benchkit import parse_args  # noqa: E402

QUICK = {"agents": 2, "memories": 20}


def build(root: Path, agents: int, memories: int) -> list[str]:
    embedder, names = HashEmbedder(dim=384), [f"earth-{n}" for n in range(agents)]
    for n, name in enumerate(names):
        with Agent.init(name, home=root / "earth", embedder=embedder) as agent:
            agent.add_remote("origin", f"file://{root / 'earth.db'}")
            agent.add_remote("direct", f"file://{root / 'direct.db'}")
            agent.store_many([{"content": f"{name} reading {k} of sensor {n}"} for k in range(memories)])
            agent.push("origin")
    with Agent.init("mars-1", home=root / "mars", embedder=embedder) as mars:
        mars.add_remote("origin", f"file://{root / 'mars.db'}")
        mars.store("Mars base pressure nominal")
        mars.push()
    return names


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--memories", type=int, default=1000)
    args = parse_args(parser, argv, QUICK)
    with tempfile.TemporaryDirectory(prefix="cmem-bench-relay-") as scratch:
        root = Path(scratch)
        names = build(root, args.agents, args.memories)
        started = time.perf_counter()
        for name in names:  # the baseline: each agent pushes its branch to the far commons itself
            with Agent.open(name, home=root / "earth") as agent:
                agent.repo.push("direct", agent.branch)
        direct = time.perf_counter() - started
        link = Link(Site("earth", f"file://{root / 'earth.db'}"), Site("mars", f"file://{root / 'mars.db'}"))
        with Relay(link, root / "relay", VirtualClock(datetime(2026, 12, 1, tzinfo=timezone.utc))) as relay:
            started = time.perf_counter()
            departed = relay.step()
            depart = time.perf_counter() - started
            landed = relay.step()
            land = time.perf_counter() - started - depart
            idle = relay.step()
            still = time.perf_counter() - started - depart - land
    print(json.dumps({"bench": "relay_window", "branches": departed["departed"], "landed": landed["landed"],
                      "memories": args.agents * args.memories + 1, "depart_s": round(depart, 3),
                      "land_s": round(land, 3), "idle_step_s": round(still, 3), "idle_departed": idle["departed"],
                      "baseline_direct_push_s": round(direct, 3)}))


if __name__ == "__main__":
    main()
