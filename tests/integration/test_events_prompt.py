"""A store or a push signals by itself: where a NATS server is named, the command publishes
what it left in the outbox as it ends, without a listener or `cmem events flush`; where the
server does not answer, the command still succeeds and its events wait in the outbox."""

from __future__ import annotations

import asyncio
import json

from collective.agent import Agent
from collective.mcp.tools import MemoryTools
from events_support import spying

TEXT = "The water recycler in module E was serviced today."


def named(home, url: str) -> None:
    (home / "cmem.toml").write_text(f'[nats]\nservers = ["{url}"]\n')


def test_a_store_publishes_without_a_flush_and_never_the_statement(home, hash_embedder, nats_server, cmem):
    Agent.init("earth-1", home=home, embedder=hash_embedder).close()
    named(home, nats_server.url)

    async def store_while_spying():
        with Agent.open("earth-1", home=home, embedder=hash_embedder) as earth:
            async with spying([nats_server.url], [earth]) as spy:
                done = await asyncio.to_thread(cmem, "store", TEXT, "--agent", "earth-1", "--json")
                assert done.exit_code == 0, done.output
                stored_id = json.loads(done.stdout)["id"]
                for _ in range(40):
                    if any(b"memory.stored" in data for _, data in spy.messages):
                        break
                    await asyncio.sleep(0.05)
                return stored_id, list(spy.messages)

    stored_id, messages = asyncio.run(store_while_spying())
    stored = [json.loads(data) for subject, data in messages if subject.endswith(".memory.stored")]
    assert [e["entity_id"] for e in stored] == [stored_id]
    assert all(TEXT.encode() not in data for _, data in messages)
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as earth:
        assert earth.status()["events"]["outbox"] == 0


def test_an_mcp_store_publishes_too(home, hash_embedder, nats_server):
    Agent.init("earth-1", home=home, embedder=hash_embedder).close()
    named(home, nats_server.url)
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as earth:
        MemoryTools(earth).store(TEXT)
        assert earth.status()["events"]["outbox"] == 0


def test_a_nats_that_does_not_answer_fails_nothing_and_the_events_wait(home, hash_embedder, nats_server, cmem):
    Agent.init("earth-1", home=home, embedder=hash_embedder).close()
    named(home, "nats://127.0.0.1:9")  # nothing listens there
    done = cmem("store", TEXT, "--agent", "earth-1", "--json")
    assert done.exit_code == 0, done.output
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as earth:
        assert earth.status()["events"]["outbox"] == 1
    named(home, nats_server.url)  # the server named again: the next command sends what waited
    flushed = cmem("events", "flush", "--agent", "earth-1", "--json")
    assert flushed.exit_code == 0 and json.loads(flushed.stdout)["published"] == 1, flushed.output


def test_without_a_named_server_a_command_publishes_nothing(home, hash_embedder, cmem):
    Agent.init("earth-1", home=home, embedder=hash_embedder).close()
    assert cmem("store", TEXT, "--agent", "earth-1").exit_code == 0
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as earth:
        assert earth.status()["events"]["outbox"] == 1
