"""Events between two agents on one NATS server: a store reaches a peer's tail within a
second, `listen` pulls what is relevant and not what is not, a dream is told and its
synthesis waits for the sync window, bad messages are dropped with one log line and
counted, and a spy on cmem.> sees metadata only."""

from __future__ import annotations

import asyncio
import json
import logging
import time

from collective.agent import Agent
from collective.identity import Identity
from collective.model import events
from collective.sync.events.service import flush, tail
from collective.sync.events.signing import sign
from collective.sync.policy import PolicySettings
from events_support import handled, listening, options_for, spying, until
from events_support import two_agents  # noqa: F401  (the `two` fixture)
from tests.integration.dream_helpers import store_topics

PUMP = "The coolant pump in module C is leaking. Isolate it before the next shift."
DUST = "Dust settled on the east window. Nobody needs to act on it."


def test_a_store_reaches_a_peers_tail_within_a_second(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])

    async def scenario():
        async with spying([nats_server.url], list(two.values())):
            seen, stop, ready = [], asyncio.Event(), asyncio.Event()

            def arrived(event):
                seen.append((time.perf_counter(), event))
                if event["event_type"] == "memory.stored":
                    stop.set()
            watching = asyncio.ensure_future(tail(mars.sync_port(), options, types=["memory.stored"], on_event=arrived,
                                                  stop=stop, ready=ready))
            await ready.wait()
            stored = earth.store(PUMP, importance=0.9, tags=["pump"])
            committed = time.perf_counter()
            await flush(earth.sync_port(), options)
            await asyncio.wait_for(watching, 5)
            return stored, committed, seen

    stored, committed, seen = asyncio.run(scenario())
    at, event = seen[-1]
    assert event["status"] == "received" and event["entity_id"] == stored.memory.id
    assert event["payload"]["topic"] == ["pump"] and "summary" not in event["payload"]  # its tag: no common word
    assert at - committed < 1.0


def test_listen_pulls_what_is_relevant_and_not_what_is_not(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])

    async def scenario():
        async with spying([nats_server.url], list(two.values())):
            async with listening(mars, options, PolicySettings()) as (_, outcomes):
                relevant = earth.store(PUMP, importance=0.9)
                idle = earth.store(DUST, importance=0.1)
                earth.push()
                await flush(earth.sync_port(), options)
                await until(lambda: len(handled(outcomes, "memory.stored")) == 2)
                return relevant, idle, outcomes

    relevant, idle, outcomes = asyncio.run(scenario())
    decisions = {o.envelope["entity_id"]: (o.decision.action, pulled) for o, pulled in outcomes
                 if o.status == "handled" and o.envelope["event_type"] == "memory.stored"}
    assert decisions[relevant.memory.id][0] == "now" and decisions[relevant.memory.id][1]["pulled"]
    assert decisions[idle.memory.id] == ("skip", None)
    held = mars.tables.memories.by_id([relevant.memory.id, idle.memory.id])
    assert relevant.memory.id in held
    recorded = {d["entity_id"]: d for d in mars.tables.decisions.all()}
    assert recorded[relevant.memory.id]["done_at"] and "amplitude 0.90" in recorded[relevant.memory.id]["reason"]
    assert recorded[idle.memory.id]["decision"] == "skip"


def test_focus_pulls_a_weak_memory_on_the_agents_topic(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])
    focused = PolicySettings(focus_tags=("pump",))

    async def scenario():
        async with spying([nats_server.url], list(two.values())):
            async with listening(mars, options, focused) as (_, outcomes):
                weak = earth.store(PUMP, importance=0.2, tags=["pump"])
                earth.push()
                await flush(earth.sync_port(), options)
                await until(lambda: handled(outcomes, "memory.stored"))
                return weak, handled(outcomes, "memory.stored")[0]

    weak, outcome = asyncio.run(scenario())
    assert outcome.decision.action == "now" and "pump" in outcome.decision.reason
    assert mars.tables.memories.get(weak.memory.id) is not None


def test_a_dream_is_told_as_metadata_and_its_synthesis_waits_for_the_window(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])
    store_topics(earth, topics=2, per=4, importance=0.9)
    stored = earth.tables.outbox.unsent(100)
    with earth.repo.transaction():  # the stores are not this scenario's subject
        earth.tables.outbox.mark_sent([r["event_id"] for r in stored], at="2026-01-01T00:00:00.000000Z")

    def synthesiser(texts):  # a summary, then text the spy must never see on the wire
        return "The pumps agree. " + " ".join(texts)

    async def scenario():
        async with spying([nats_server.url], list(two.values())):
            async with listening(mars, options, PolicySettings(focus_tags=("dream",))) as (_, outcomes):
                run = earth.dream(synthesiser=synthesiser)
                await flush(earth.sync_port(), options)
                await until(lambda: handled(outcomes, "dream.completed"))
                return run, outcomes

    run, outcomes = asyncio.run(scenario())
    assert len(run["synthesised"]) == 2 and earth.get(run["synthesised"][0]["id"]).content.startswith("The pumps")
    decided = {(o.envelope["event_type"], o.envelope["entity_id"]): o.decision.action for o, _ in outcomes
               if o.status == "handled"}
    assert decided == {("dream.started", run["branch"]): "skip", ("dream.completed", run["branch"]): "queue",
                       **{("dream.hallucination", m["id"]): "queue" for m in run["synthesised"]}}
    recorded = {d["entity_id"]: d for d in mars.tables.decisions.all() if d["event_type"] == "dream.hallucination"}
    assert all("dream in focus" in d["reason"] and d["done_at"] is None for d in recorded.values())


def _raw(envelope: dict) -> bytes:
    return json.dumps(envelope).encode()


def test_bad_messages_are_dropped_counted_and_the_receiver_goes_on(two, nats_server, tmp_path, caplog):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])
    good = events.Sender("earth-1").stamp(events.Draft("sync.requested", "earth-1", {"reason": "test"}))
    forger = Identity.generate(tmp_path / "forger.pem")
    subject = events.subject("default", "earth-1", "sync.requested")
    bad = {
        "bad_signature": (subject, _raw(sign(good, forger))),
        "malformed": (subject, b"{not json"),
        "oversize": (subject, b"{" + b" " * 5000 + b"}"),
        "unknown_type": (events.subject("default", "earth-1", "memory.teleported"),
                         _raw(sign({**good, "event_type": "memory.teleported"}, earth.identity))),
    }

    async def scenario():
        import nats
        async with listening(mars, options) as (listener, outcomes):
            nc = await nats.connect(nats_server.url)
            js = nc.jetstream()
            for subj, data in bad.values():
                await js.publish(subj, data)
            await js.publish(subject, _raw(sign(good, earth.identity)))
            await nc.close()
            # the listener also sees its own agent's events ("own"): wait for the five sent here
            await until(lambda: len([o for o, _ in outcomes if o.status != "own"]) >= 5)
            return listener.receiver.counts(), outcomes

    with caplog.at_level(logging.WARNING, logger="cmem.events"):
        counts, outcomes = asyncio.run(scenario())
    assert counts["dropped"] == {reason: 1 for reason in bad}
    assert counts["handled"] == 1 and outcomes[-1][0].envelope["event_id"] == good["event_id"]
    drops = [r for r in caplog.records if r.getMessage().startswith("dropped event")]
    assert sorted(r.getMessage().split(": ")[1] for r in drops) == sorted(bad)
    assert {r: mars.tables.state.get(f"events.dropped.{r}") for r in bad} == {r: "1" for r in bad}
    # a dropped message is reported with what its subject names (its envelope was not taken)
    named = {(o.to_dict()["agent"], o.to_dict()["event_type"]) for o, _ in outcomes if o.status == "dropped"}
    assert named == {("earth-1", "sync.requested"), ("earth-1", "memory.teleported")}


def test_a_redelivered_event_is_handled_once(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])
    earth.store(DUST, importance=0.1)
    (row,) = [r for r in earth.tables.outbox.unsent(10) if "memory.stored" in r["subject"]]

    async def scenario():
        import nats
        async with listening(mars, options) as (_, outcomes):
            nc = await nats.connect(nats_server.url)
            signed = _raw(sign(json.loads(row["envelope"]), earth.identity))
            for _ in range(3):  # beyond the stream's duplicate window: no Nats-Msg-Id
                await nc.jetstream().publish(row["subject"], signed)
            await nc.close()
            await until(lambda: sum(o.status in ("handled", "duplicate") for o, _ in outcomes) >= 3)
            return outcomes

    outcomes = asyncio.run(scenario())
    assert [o.status for o, _ in outcomes if o.envelope and o.envelope["event_id"] == row["event_id"]] == \
        ["handled", "duplicate", "duplicate"]
    assert mars.tables.inbox.count() == 1


def test_a_memory_announced_before_its_push_is_pulled_when_the_push_is_announced(two, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    options = options_for(mars, [nats_server.url])

    async def scenario():
        async with spying([nats_server.url], list(two.values())):
            async with listening(mars, options) as (_, outcomes):
                early = earth.store(PUMP, importance=0.9)
                await flush(earth.sync_port(), options)  # announced, not on the commons yet
                await until(lambda: handled(outcomes, "memory.stored"))
                waiting = [d["entity_id"] for d in mars.tables.decisions.open(decision="now")]
                # the agents' first push (when they met) was announced too: wait for this one's
                pushes = len(handled(outcomes, "sync.pushed"))
                earth.push()
                await flush(earth.sync_port(), options)
                await until(lambda: len(handled(outcomes, "sync.pushed")) > pushes and not mars.tables.decisions.open())
                return early, waiting, handled(outcomes, "sync.pushed")[-1], outcomes

    early, waiting, pushed, outcomes = asyncio.run(scenario())
    assert waiting == [early.memory.id]
    # the pull "now" ran, and says it did not bring the memory (not a pull that brought nothing, silently)
    (announced,) = [p for o, p in outcomes if o.status == "handled" and o.envelope["entity_id"] == early.memory.id]
    assert announced["pulled"] and not announced["brought"]
    assert pushed.decision.action == "now" and "1 announced" in pushed.decision.reason
    assert mars.tables.memories.get(early.memory.id) is not None


def test_a_sender_never_pulled_is_verified_by_the_key_its_branch_shows_on_the_commons(two, nats_server, home,
                                                                                       hash_embedder, tmp_path):
    """A listener took only events of peers it had pulled before: one that joined later was
    dropped as unknown_sender until someone pulled it. Now its key is read from its branch on
    the commons, as a pull's first sighting reads it; a forger claiming its name still fails."""
    mars = two["mars-1"]
    venus = Agent.init("venus-1", home=home, embedder=hash_embedder)
    try:
        venus.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        venus.push()  # on the commons; mars has neither pulled nor fetched it
        options = options_for(mars, [nats_server.url])
        good = events.Sender("venus-1").stamp(events.Draft("sync.requested", "venus-1", {"reason": "test"}))
        forged = events.Sender("venus-1").stamp(events.Draft("sync.requested", "venus-1", {"reason": "forged"}))
        subject = events.subject("default", "venus-1", "sync.requested")
        forger = Identity.generate(tmp_path / "forger.pem")

        async def scenario():
            import nats
            async with listening(mars, options) as (listener, outcomes):
                nc = await nats.connect(nats_server.url)
                await nc.jetstream().publish(subject, _raw(sign(forged, forger)))
                await nc.jetstream().publish(subject, _raw(sign(good, venus.identity)))
                await nc.close()
                await until(lambda: len([o for o, _ in outcomes if o.status != "own"]) >= 2)
                return listener.receiver.counts(), outcomes

        counts, outcomes = asyncio.run(scenario())
        assert counts["dropped"] == {"bad_signature": 1} and counts["handled"] == 1
        assert [o.envelope["event_id"] for o, _ in outcomes if o.status == "handled"] == [good["event_id"]]
    finally:
        venus.close()
