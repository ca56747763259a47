"""Every change that emits an event writes it to the outbox in the same transaction, on
both engines: a store, a reinforcement, a pull's plan and conflict, a push, a verdict,
a retraction, a dream's merge or acceptance; a change that fails leaves no event."""

from __future__ import annotations

import json

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.dream import report as dream_report
from collective.dream.stages import transfer
from collective.errors import StorageError
from collective.model import events
from collective.store.event_tables import Outbox
from collective.quarantine import cases as quarantine
from events_support import met
from tests.integration.dream_helpers import store_topics

PUMP = "The coolant pump in module B is safe to operate"
NOT_PUMP = "The coolant pump in module B is not safe to operate"

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def two(tmp_path, home, hash_embedder, engine):
    folder = tmp_path / "commons"
    folder.mkdir()
    url = f"file://{folder}" if engine == "dolt" else f"file://{folder / 'commons.db'}"
    agents = met(home, hash_embedder, url)
    reviewer = reviewer_keys.init(Home.at(home), "ana")  # a reviewer both agents honour
    for agent in agents.values():
        agent.add_reviewer("ana", reviewer["public_key"])
        drain(agent)
    yield agents
    for agent in agents.values():
        agent.close()


def drain(agent) -> list[dict]:
    """The outbox's envelopes, marked sent (as a publisher would)."""
    rows = agent.tables.outbox.unsent(1000)
    with agent.repo.transaction():
        agent.tables.outbox.mark_sent([r["event_id"] for r in rows], at="2026-01-01T00:00:00.000000Z")
    return [json.loads(r["envelope"]) for r in rows]


def test_each_change_emits_its_events(two):
    earth, mars = two["earth-1"], two["mars-1"]
    pump = earth.store(PUMP, tags=["pump"]).memory
    earth.store(PUMP)
    assert [(e["event_type"], e["entity_id"]) for e in drain(earth)] == [("memory.stored", pump.id),
                                                                          ("memory.boosted", pump.id)]
    not_pump = mars.store(NOT_PUMP).memory
    mars.push()
    assert [e["event_type"] for e in drain(mars)] == ["memory.stored", "sync.pushed"]
    earth.pull()
    case_id = quarantine.case_id(pump.id, not_pump.id)
    pulled = drain(earth)
    assert [e["event_type"] for e in pulled] == ["merge.proposed", "merge.conflict", "memory.disputed"]
    assert pulled[1]["entity_id"] == case_id and pulled[2]["entity_id"] == pump.id
    assert pulled[0]["payload"]["counts"]["destructive"] == 1
    earth.resolve_dispute(case_id, keep="a" if min(pump.id, not_pump.id) == pump.id else "b", by="ana")
    earth.forget(pump.id)
    assert [e["event_type"] for e in drain(earth)] == ["quarantine.resolved", "memory.pruned"]
    assert earth.status()["events"]["outbox"] == 0 and earth.status()["events"]["last_publish"]


def test_a_change_that_fails_leaves_no_event(two, monkeypatch):
    earth = two["earth-1"]
    before = earth.tables.memories.count()

    def broken(*args, **kwargs):
        raise StorageError("disk full")
    monkeypatch.setattr(earth.repo, "commit", broken)
    with pytest.raises(StorageError):
        earth.store(PUMP)
    monkeypatch.undo()
    assert earth.tables.outbox.depth() == 0 and earth.tables.memories.count() == before
    earth.store(PUMP)
    assert earth.tables.outbox.depth() == 1


def test_summaries_can_be_switched_on_but_off_per_agent_and_old_events_pruned(two, home):
    (home / "cmem.toml").write_text((home / "cmem.toml").read_text()
                                    + '[events]\nsummary = true\nsummary_off = ["mars-1"]\n')
    for agent in two.values():
        agent.close()
    with Agent.open("earth-1", home=home, embedder=two["earth-1"].embedder) as earth, \
            Agent.open("mars-1", home=home, embedder=two["mars-1"].embedder) as mars:
        earth.store(PUMP)
        mars.store(NOT_PUMP)
        assert "summary" in drain(earth)[0]["payload"] and "summary" not in drain(mars)[0]["payload"]
        with earth.repo.transaction():
            assert earth.tables.outbox.prune(sent_before="2026-01-01T00:00:00.000001Z") >= 1
        assert earth.tables.outbox.count() == 0


def _run_events(run: dict) -> list[tuple[str, str]]:
    return [("dream.started", run["branch"]), *[("dream.hallucination", m["id"]) for m in run["synthesised"]],
            ("dream.completed", run["branch"])]


def test_a_dream_emits_its_run_and_each_synthesis_when_it_reaches_working(two):
    earth = two["earth-1"]
    store_topics(earth, topics=2, per=4)
    drain(earth)
    run = earth.dream(share=False)
    told = drain(earth)
    assert len(run["synthesised"]) == 2
    assert [(e["event_type"], e["entity_id"]) for e in told] == _run_events(run)
    started, made, completed = told[0]["payload"], told[1]["payload"], told[-1]["payload"]
    assert (started["run"], started["mode"], started["selected"]) == (run["run"], "full", 8)
    synthesis = earth.get(told[1]["entity_id"])
    assert made == {"origin": "earth-1", "category": str(synthesis.category), "run": run["run"], "tags": ["dream"],
                    "amplitude": round(synthesis.amplitude, 4), "parent_count": 3,
                    "topic": made["topic"]}
    assert made["topic"] and "summary" not in made
    assert completed["counts"] == run["counts"] and completed["status"] == "merged" and completed["seconds"] > 0
    assert (completed["stability_before"], completed["stability_after"]) == (run["stability"]["before"],
                                                                              run["stability"]["after"])
    reviewed = earth.dream(full=True, review=True, share=False)
    assert drain(earth) == []  # waiting for review: nothing reached working, no one is told
    earth.accept_dream(reviewed["run"])
    told = drain(earth)
    assert [(e["event_type"], e["entity_id"]) for e in told] == _run_events(reviewed)
    assert told[-1]["payload"]["status"] == "accepted"


@pytest.mark.parametrize("where", ["stage", "write", "merge"])
def test_a_dream_that_fails_leaves_no_event(two, monkeypatch, where):
    earth = two["earth-1"]
    store_topics(earth, topics=2, per=4)
    drain(earth)
    head = earth.repo.head(earth.branch)

    def boom(*args, **kwargs):
        raise RuntimeError("injected")

    if where == "stage":
        monkeypatch.setattr(transfer, "transfer", boom)
    elif where == "write":
        monkeypatch.setattr(dream_report, "cluster_rows", boom)  # after the memories and links
    else:
        monkeypatch.setattr(earth.repo, "merge", boom)  # the events are in the outbox's transaction by then
    with pytest.raises(RuntimeError, match="injected"):
        earth.dream(share=False)
    monkeypatch.undo()
    assert earth.tables.outbox.depth() == 0 and earth.repo.head(earth.branch) == head
    run = earth.dream(share=False)  # the same run, not failing, tells
    assert [(e["event_type"], e["entity_id"]) for e in drain(earth)] == _run_events(run)


def test_events_switched_off_write_nothing_and_the_outbox_is_bounded(two, home):
    """Without NATS the outbox grew by one event a store, for ever: now it keeps the newest
    `outbox_limit` unsent (the oldest go, counted), and `enabled = false` writes none."""
    for agent in two.values():
        agent.close()
    config = (home / "cmem.toml").read_text()
    (home / "cmem.toml").write_text(config + "[events]\noutbox_limit = 3\n")
    with Agent.open("earth-1", home=home, embedder=two["earth-1"].embedder) as earth:
        drain(earth)
        stored = [earth.store(f"Rover {n} is charged.").memory.id for n in range(5)]
        waiting = [json.loads(r["envelope"])["entity_id"] for r in earth.tables.outbox.unsent(10)]
        assert waiting == stored[2:]
        assert earth.tables.state.get("events.dropped.outbox_full") == "2"
    (home / "cmem.toml").write_text(config + "[events]\nenabled = false\n")
    with Agent.open("earth-1", home=home, embedder=two["earth-1"].embedder) as earth:
        before = earth.tables.outbox.count()
        earth.store("Rover 9 is charged.")
        assert earth.tables.outbox.count() == before


def test_an_outbox_far_over_its_bound_drops_its_oldest_in_one_go(two):
    """A bound lowered under tens of thousands of waiting events (or an outbox that grew
    before it had one) dropped them in one statement, over SQLite's 32,766 variables: the
    change that wrote the next event failed."""
    earth = two["earth-1"]
    outbox = Outbox(earth.repo, earth.tables.outbox.sender)
    drafts = [events.memory_event(events.E.MEMORY_STORED, earth.store("Rover 1 is charged.").memory)] * 33_000
    with earth.repo.transaction():
        outbox.add(drafts)
    outbox.limit = 10
    with earth.repo.transaction():
        outbox.add(drafts[:1])
    assert outbox.depth() == 10
