#!/usr/bin/env python3
"""Tool-call latency through `cmem mcp` against the same Agent call in-process.

Two agents in one temporary home, created alike. One is served by `cmem mcp`
in a subprocess and called through the `mcp` package's client over stdio; the
other is opened in this process. Calls alternate between the two (store i
through MCP, store i in-process, ...) so a change in the machine's load hits
both alike. After a warm-up call of each kind (the model loads, the index is
built), it times N stores, then N recalls (k=5) on each side, and prints one
JSON line with the p50 and p95 of each, in milliseconds.

    python scripts/bench_mcp.py                  # the default embedder (MiniLM), 100 calls each
    python scripts/bench_mcp.py --embedder hash  # the tests' hashing embedder: no model time
    python scripts/bench_mcp.py --quick          # 5 calls each: seconds
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import anyio
import numpy as np
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from collective.agent import Agent
from collective.embedders import HashEmbedder

from benchkit import parse_args

CMEM = str(Path(sys.executable).parent / "cmem")
TOPICS = ("coolant pump", "airlock seal", "rover battery", "solar array", "dust storm", "water recycler",
          "oxygen scrubber", "habitat heater", "sample drill", "radio mast")
# The hash-embedder server: the same serve() that `cmem mcp` runs, on an agent opened with it.
HASH_SERVER = ("import collective, sys\nfrom collective.agent import Agent\nfrom collective.embedders import HashEmbedder\n"
               "from collective.mcp.server import serve\n"
               "with Agent.open(sys.argv[1], home=sys.argv[2], embedder=HashEmbedder(384)) as agent:\n"
               "    serve(agent)\n")


def sentence(i: int) -> str:
    return f"Check {i}: the {TOPICS[i % len(TOPICS)]} in module {i % 7} read {i * 37 % 1000} units."


def query(i: int) -> str:
    return f"What did the {TOPICS[i % len(TOPICS)]} in module {i % 7} read?"


def server_params(agent_id: str, home: Path, embedder: str) -> StdioServerParameters:
    if embedder == "hash":
        return StdioServerParameters(command=sys.executable, args=["-c", HASH_SERVER, agent_id, str(home)])
    return StdioServerParameters(command=CMEM, args=["mcp", "--agent", agent_id, "--home", str(home)])


async def timed_call(session: ClientSession, tool: str, **arguments) -> float:
    start = time.perf_counter()
    result = await session.call_tool(tool, arguments)
    elapsed = time.perf_counter() - start
    if result.is_error:
        raise SystemExit(f"{tool} failed through MCP: {result.content[0].text}")
    return elapsed


def timed(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


async def measure(home: Path, calls: int, embedder: str, local: Agent) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"store_mcp": [], "store_in_process": [], "recall_mcp": [],
                                     "recall_in_process": []}
    async with stdio_client(server_params("served", home, embedder)) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        await timed_call(session, "memory_store", content="warm-up")
        await timed_call(session, "memory_recall", query="warm-up")
        local.store("warm-up")
        local.recall("warm-up")
        for i in range(calls):
            times["store_mcp"].append(await timed_call(session, "memory_store", content=sentence(i)))
            times["store_in_process"].append(timed(local.store, sentence(i)))
        for i in range(calls):
            times["recall_mcp"].append(await timed_call(session, "memory_recall", query=query(i), k=5))
            times["recall_in_process"].append(timed(local.recall, query(i), k=5))
    return times


def ms(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)) * 1000, 2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="Timed calls of each kind on each side.")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm",
                        help="minilm (the default embedder) or hash (the tests' hashing embedder).")
    args = parse_args(parser, argv, {"calls": 5})
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as work:
        home = Path(work)
        chosen = HashEmbedder(384) if args.embedder == "hash" else None
        Agent.init("served", home=home, embedder=chosen).close()
        with Agent.init("local", home=home, embedder=chosen) as local:
            times = anyio.run(measure, home, args.calls, args.embedder, local)
    record = {"bench": "mcp_tool_call", "embedder": args.embedder, "calls": args.calls,
              "baseline": "the same Agent call in this process, alternating with the calls through MCP"}
    for tool in ("store", "recall"):
        served, baseline = times[f"{tool}_mcp"], times[f"{tool}_in_process"]
        record[tool] = {"mcp_p50_ms": ms(served, 50), "in_process_p50_ms": ms(baseline, 50),
                        "mcp_p95_ms": ms(served, 95), "in_process_p95_ms": ms(baseline, 95),
                        "overhead_p50_ms": round(ms(served, 50) - ms(baseline, 50), 2),
                        "mean_ratio": round(statistics.fmean(served) / statistics.fmean(baseline), 2)}
    record.update(load=round(os.getloadavg()[0], 2), cpus=os.cpu_count())
    print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
