#!/usr/bin/env python3
"""Event benchmarks on a local nats-server (loopback). Prints one JSON line per measurement,
each with a baseline measured in the same run:

- commit_to_receipt: from the moment a store's commit returns on earth-1 to the event's
  arrival at mars-1's receiver through its durable consumer (p50, p99; the outbox,
  signing and JetStream on the way), and to its being verified, recorded and decided
  (handled_*), over N stores, one at a time;
  against bare nats-py: a JetStream publish of a same-size message to its receipt by a
  pull consumer.
- outbox_drain: events per second drained from an outbox of M events (read, sign,
  publish with Nats-Msg-Id, wait for every ack, mark sent); against bare nats-py
  publish_async of the same signed messages with the same headers, acks awaited.

    python scripts/bench_events.py            # 500 stores, 10k events
    python scripts/bench_events.py --quick    # 20 stores, 200 events: seconds
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import numpy as np

from collective.agent import Agent
from collective.embedders import HashEmbedder
from collective.model import events
from collective.model.events import encode
from collective.sync.events.connection import NatsOptions, connect, durable_subscription, ensure_stream
from collective.sync.events.publisher import Publisher
from collective.sync.events.service import Listener
from collective.sync.events.signing import sign

from benchkit import parse_args

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from nats_servers import NatsServer  # noqa: E402  (tests/: a local nats-server)

TARGET_P99_MS = 20.0
TARGET_DRAIN = 5000.0


def emit(record: dict) -> None:
    record.update(cpus=os.cpu_count(), load=round(os.getloadavg()[0], 2))
    print(json.dumps(record), flush=True)


def percentiles(samples: list[float]) -> dict:
    ms = np.asarray(samples) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 3), "p99_ms": round(float(np.percentile(ms, 99)), 3)}


def met(home: Path, commons: Path) -> tuple[Agent, Agent]:
    """Two agents that know each other's keys (one push and pull through a file commons)."""
    embedder = HashEmbedder(dim=384)
    earth, mars = (Agent.init(n, home=home, embedder=embedder) for n in ("earth-1", "mars-1"))
    for agent in (earth, mars):
        agent.add_remote("origin", f"file://{commons}")
        agent.push()
    mars.pull()
    return earth, mars


async def commit_to_receipt(earth: Agent, mars: Agent, options: NatsOptions, n: int) -> tuple[list, list]:
    """(commit -> arrival at mars's receiver, commit -> verified, recorded and decided), per store."""
    received: dict[str, tuple[float, float]] = {}

    def outcome(o, _):
        if o.envelope:
            received.setdefault(o.envelope["entity_id"], (o.arrived, time.perf_counter()))
    listener = Listener(mars.sync_port(), options, on_outcome=outcome, status_every=3600)
    task = asyncio.ensure_future(listener.run())
    await listener.ready.wait()
    nc = await connect(options, name="bench-publisher")
    with ThreadPoolExecutor(1) as db:
        publisher = Publisher(earth.tables.outbox, earth.identity, nc.jetstream(), db=db)
        await publisher.drain()
        running = asyncio.ensure_future(publisher.run(poll=1.0))
        arrival, handled = [], []
        for i in range(n):
            memory = await asyncio.get_running_loop().run_in_executor(db, lambda: earth.store(
                f"Gauge {i} reads nominal. Logged by the night shift.", importance=0.1).memory)
            committed = time.perf_counter()
            publisher.wake()
            while memory.id not in received:
                await asyncio.sleep(0)
            arrival.append(received[memory.id][0] - committed)
            handled.append(received[memory.id][1] - committed)
        running.cancel()
    listener.stop.set()
    await task
    await nc.close()
    return arrival, handled


async def bare_round_trip(options: NatsOptions, payload: bytes, n: int) -> list[float]:
    nc = await connect(options, name="bench-bare")
    js = nc.jetstream()
    await js.add_stream(name="BARE", subjects=["bare.>"])
    sub = await js.pull_subscribe("bare.x", durable="bare", stream="BARE")
    samples = []
    for i in range(n):
        started = time.perf_counter()
        await js.publish("bare.x", payload, headers={"Nats-Msg-Id": f"rt-{i}"})
        (message,) = await sub.fetch(1, timeout=5)
        await message.ack()
        samples.append(time.perf_counter() - started)
    await js.delete_stream("BARE")
    await nc.close()
    return samples


def fill_outbox(agent: Agent, m: int) -> None:
    draft = events.Draft("memory.stored", "m", {"origin": agent.agent_id, "category": "knowledge",
                                                "amplitude": 0.5, "tags": ["bench"], "summary": "A gauge reading."})
    with agent.repo.transaction():
        agent.tables.outbox.add([draft] * m)


async def drain_rate(agent: Agent, options: NatsOptions, m: int) -> tuple[float, list[tuple[str, bytes, str]]]:
    fill_outbox(agent, m)
    rows = agent.tables.outbox.unsent(m)
    signed = [(r["subject"], encode(sign(json.loads(r["envelope"]), agent.identity)), r["event_id"]) for r in rows]
    nc = await connect(options, name="bench-drain")
    publisher = Publisher(agent.tables.outbox, agent.identity, nc.jetstream())
    started = time.perf_counter()
    published = await publisher.drain()
    seconds = time.perf_counter() - started
    await nc.close()
    assert published == m and agent.tables.outbox.depth() == 0
    return m / seconds, signed


async def bare_publish_rate(options: NatsOptions, signed: list[tuple[str, bytes, str]]) -> float:
    nc = await connect(options, name="bench-bare-publish")
    js = nc.jetstream()
    await js.add_stream(name="BAREPUB", subjects=["barepub.>"])
    started = time.perf_counter()
    acks = [await js.publish_async("barepub." + s.split(".", 2)[2], data, headers={"Nats-Msg-Id": "b" + i})
            for s, data, i in signed]
    await asyncio.gather(*acks)
    seconds = time.perf_counter() - started
    await js.delete_stream("BAREPUB")
    await nc.close()
    return len(signed) / seconds


async def run(root: Path, n: int, m: int) -> None:
    server = NatsServer(root / "nats").start()
    try:
        earth, mars = met(root / "home", root / "commons.db")
        options = NatsOptions.from_home(earth.home, servers=(server.url,))
        nc = await connect(options, name="bench-setup")
        await ensure_stream(nc.jetstream(), options)
        await durable_subscription(nc.jetstream(), options, "mars-1")
        await nc.close()
        arrival, handled = await commit_to_receipt(earth, mars, options, n)
        ours, decided = percentiles(arrival), percentiles(handled)
        size = len(encode(sign(json.loads(earth.tables.outbox.unsent(1)[0]["envelope"]), earth.identity))) \
            if earth.tables.outbox.depth() else 400
        bare = percentiles(await bare_round_trip(options, b"x" * size, n))
        emit({"bench": "commit_to_receipt", "stores": n, **ours, "handled_p50_ms": decided["p50_ms"],
              "handled_p99_ms": decided["p99_ms"], "baseline": "bare nats-py JetStream publish -> "
              "pull fetch", "baseline_p50_ms": bare["p50_ms"], "baseline_p99_ms": bare["p99_ms"],
              "target_p99_ms": TARGET_P99_MS, "met": ours["p99_ms"] <= TARGET_P99_MS})
        rate, signed = await drain_rate(earth, options, m)
        bare_rate = await bare_publish_rate(options, signed)
        emit({"bench": "outbox_drain", "events": m, "events_per_s": round(rate), "baseline": "bare nats-py "
              "publish_async, acks awaited", "baseline_events_per_s": round(bare_rate),
              "target_events_per_s": TARGET_DRAIN, "met": rate >= TARGET_DRAIN})
        earth.close()
        mars.close()
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stores", type=int, default=500, help="stores timed one at a time (default 500)")
    parser.add_argument("--events", type=int, default=10_000, help="events in the outbox drained (default 10000)")
    args = parse_args(parser, argv, {"stores": 20, "events": 200})
    with tempfile.TemporaryDirectory(prefix="cmem-bench-events-") as folder:
        asyncio.run(run(Path(folder), args.stores, args.events))


if __name__ == "__main__":
    sys.exit(main())
