"""Events survive outages: NATS stopped while an agent stores, a receiver away while
its peer stores, and one server of a three-server JetStream cluster killed mid-way.
Every event arrives and is handled once."""

from __future__ import annotations

import asyncio

from events_support import handled, listening, options_for, spying, until
from events_support import two_agents  # noqa: F401  (the `two` fixture)
from collective.sync.events.connection import connect, ensure_stream
from collective.sync.events.publisher import Publisher
from collective.sync.events.service import flush


async def _publishing(agent, options):
    """A publisher draining the agent's outbox every 50 ms, on its own connection."""
    nc = await connect(options, name="test-publisher")
    js = nc.jetstream()
    await ensure_stream(js, options)
    port = agent.sync_port()
    publisher = Publisher(port.outbox, port.identity(), js, ack_timeout=1.0)
    publisher.backoff.cap = 0.5
    stop = asyncio.Event()
    task = asyncio.ensure_future(publisher.run(poll=0.05, stop=stop))

    async def close():
        stop.set()
        publisher.wake()
        await task
        await nc.close()
    return publisher, close


def _stored_once(outcomes, sender: str, ids: set[str]) -> None:
    got = [o.envelope["entity_id"] for o in handled(outcomes, "memory.stored", sender)]
    assert sorted(got) == sorted(ids)  # each one, once


def test_nats_down_while_storing_loses_nothing(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])

    async def scenario():
        async with listening(mars, options) as (_, outcomes):
            publisher, close = await _publishing(earth, options)
            nats_server.stop()
            ids = {earth.store(f"Reading {i} of the north gauge. It was logged at the hour.", importance=0.1).memory.id
                   for i in range(100)}
            await asyncio.sleep(0.3)  # the publisher fails against the stopped server at least once
            assert earth.tables.outbox.depth() >= 100
            nats_server.start()
            async with spying([nats_server.url], [earth, mars]):
                await until(lambda: len(handled(outcomes, "memory.stored", "earth-1")) >= 100, timeout=60)
                await close()
            return ids, outcomes, publisher

    ids, outcomes, publisher = asyncio.run(scenario())
    _stored_once(outcomes, "earth-1", ids)
    assert earth.tables.outbox.depth() == 0 and publisher.backoff.failures == 0


def test_a_receiver_away_for_50_events_replays_them(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])

    async def scenario():
        async with spying([nats_server.url], [earth, mars]):
            async with listening(mars, options):
                pass  # the durable consumer exists; mars goes away
            ids = {earth.store(f"Survey point {i} is marked. The flag is orange.", importance=0.1).memory.id
                   for i in range(50)}
            await flush(earth.sync_port(), options)
            async with listening(mars, options) as (_, outcomes):
                await until(lambda: len(handled(outcomes, "memory.stored", "earth-1")) >= 50)
            return ids, outcomes

    ids, outcomes = asyncio.run(scenario())
    _stored_once(outcomes, "earth-1", ids)


def test_cluster_with_one_server_killed_delivers_every_event_once(two, nats_cluster):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, nats_cluster.urls, replicas=3)

    async def scenario():
        async with spying(nats_cluster.urls, [earth, mars]):
            async with listening(mars, options) as (_, outcomes):
                publisher, close = await _publishing(earth, options)
                ids = set()
                for i in range(100):
                    ids.add(earth.store(f"Cluster check {i} passed. The log is clean.", importance=0.1).memory.id)
                    publisher.wake()
                    if i == 30:
                        nats_cluster.servers[0].kill()
                    await asyncio.sleep(0.005)
                await until(lambda: len(handled(outcomes, "memory.stored", "earth-1")) >= 100, timeout=60)
                await close()
            return ids, outcomes

    ids, outcomes = asyncio.run(scenario())
    _stored_once(outcomes, "earth-1", ids)
    assert earth.tables.outbox.depth() == 0
