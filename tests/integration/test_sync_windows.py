"""One agent's sync scheduler on a virtual clock: nothing crosses outside a window,
priority before the rest, a new case pushed within its site at once, a dream's burst,
the listener's queued pulls."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from collective.agent import Agent
from collective.model import iso
from collective.model.refs import QUARANTINE_BRANCH
from collective.sync import policy
from collective.sync.clock import VirtualClock
from collective.sync.schedule import SyncSettings
from collective.sync.windows import RETRY, Scheduler

START = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
WINDOWS = ["2026-12-01T10:10Z/2026-12-01T10:40Z", "2026-12-01T12:00Z/2026-12-01T12:30Z"]


@pytest.fixture
def site(tmp_path, hash_embedder, engine):
    """earth-1 and earth-2 on one commons (a file for doltlite, a folder for Dolt), both pushed."""
    if engine == "dolt":
        (tmp_path / "commons").mkdir()
    url = f"file://{tmp_path / 'commons'}" if engine == "dolt" else f"file://{tmp_path / 'commons.db'}"
    agents = {name: Agent.init(name, home=tmp_path / "home", embedder=hash_embedder) for name in ("earth-1", "earth-2")}
    for agent in agents.values():
        agent.add_remote("origin", url)
        agent.push()
    try:
        yield agents
    finally:
        for agent in agents.values():
            agent.close()


def scheduler(agent, clock, **kwargs) -> Scheduler:
    return Scheduler(agent.sync_port(), SyncSettings.build(windows=WINDOWS, interval=15), clock, **kwargs)


def commons_head(agent, branch: str) -> str | None:
    return agent.repo.fetch("origin").get(branch)


def test_nothing_crosses_outside_a_window(site):
    e1, e2 = site["earth-1"], site["earth-2"]
    clock = VirtualClock(START)
    s = scheduler(e1, clock)
    e1.store("The water recycler filter was changed")
    before = commons_head(e2, "earth-1/working")
    assert s.step(whole_window=True) == [] and not s.plan()["open"]
    assert s.plan()["next_window"]["start"] == "2026-12-01T10:10:00.000000Z"
    s.run(lambda: clock.now() >= START + timedelta(minutes=9))
    assert commons_head(e2, "earth-1/working") == before
    s.run(lambda: clock.now() >= START + timedelta(minutes=11))
    assert commons_head(e2, "earth-1/working") == e1.repo.head(e1.branch)
    s.run(lambda: clock.now() >= START + timedelta(minutes=41))
    e1.store("Stored after the window closed")
    s.run(lambda: clock.now() >= START + timedelta(minutes=119))
    assert commons_head(e2, "earth-1/working") != e1.repo.head(e1.branch)
    s.run(lambda: clock.now() >= START + timedelta(minutes=121))
    assert commons_head(e2, "earth-1/working") == e1.repo.head(e1.branch)


def test_priority_memories_are_flagged_and_go_first(site):
    e1 = site["earth-1"]
    clock = VirtualClock(START)
    ran: list[str] = []
    s = scheduler(e1, clock, on_work=lambda work, result: ran.append(work.kind))
    urgent = e1.store("Hull breach alarm in module B: evacuate", importance=1.0).memory.id
    e1.store("The greenhouse lights cycle at 06:00", importance=0.5)
    queue = s.plan()["queue"]
    assert [w["kind"] for w in queue] == ["priority", "normal"] and queue[0]["flagged"] == [urgent]
    clock.set(START + timedelta(minutes=10))
    s.step()
    assert ran == ["priority", "normal"]
    assert [w["kind"] for w in s.plan()["queue"]] == []  # pushed: nothing flagged any more


def test_a_new_case_is_pushed_within_the_site_at_once(site):
    e1, e2 = site["earth-1"], site["earth-2"]
    e2.store("The coolant pump in module C is safe to operate")
    e2.push()
    e1.store("The coolant pump in module C is not safe to operate")
    clock = VirtualClock(START + timedelta(minutes=10))
    seen: dict[str, list] = {}

    def after(work, result) -> None:  # right after the pull, before any push of this window
        if "pull" in result and "cases" not in seen:
            seen["cases"] = [c["id"] for c in e2.repo.select("quarantine", as_of=f"origin/{QUARANTINE_BRANCH}")] \
                if QUARANTINE_BRANCH in e2.repo.fetch("origin") else []
    scheduler(e1, clock, on_work=after).step()
    assert len(seen["cases"]) == 1 and seen["cases"] == [c["id"] for c in e1.cases()]
    assert scheduler(e1, clock).queue() == []  # nothing left to share


def test_a_finished_dream_triggers_a_burst_push(site):
    e1 = site["earth-1"]
    clock = VirtualClock(START + timedelta(minutes=10))
    s = scheduler(e1, clock)
    s.step()  # the normal sync of this window
    e1.store_many([{"content": f"Rover 5 drove {n} km north of the base"} for n in range(3, 9)])
    e1.dream(full=True, share=False)
    clock.advance(60)
    assert [w.kind for w in s.queue()] == ["burst"]
    done = s.step()
    assert [d["kind"] for d in done] == ["burst"]
    assert commons_head(site["earth-2"], "earth-1/working") == e1.repo.head(e1.branch)
    assert s.queue() == []


def test_pulls_queued_by_the_listener_run_in_the_next_window(site):
    e1, e2 = site["earth-1"], site["earth-2"]
    e2.pull()  # meets earth-1
    e1.store("Sample 14 from the ridge holds hematite")
    e1.push()
    with e2.repo.transaction():
        e2.tables.decisions.write({"event_id": "ev-1", "sender": "earth-1", "event_type": "memory.pruned",
                                   "entity_id": "m-1", "decision": policy.QUEUE, "reason": "next sync window",
                                   "decided_at": iso(START), "done_at": None})
    clock = VirtualClock(START)
    s = Scheduler(e2.sync_port(), SyncSettings.build(windows=WINDOWS, interval=600), clock)
    s._remember(**{"sync.last_normal": START.isoformat()})  # the normal sync is not due: only the queue runs
    assert [w.kind for w in s.queue()] == ["queued"]
    assert s.step() == []  # the window is closed
    clock.set(START + timedelta(minutes=10))
    done = s.step()
    assert [d["kind"] for d in done] == ["queued"] and done[0]["result"]["pull"]["peers"] == ["earth-1"]
    assert e2.tables.decisions.open() == []
    assert e2.repo.select("memories", {"content": "Sample 14 from the ridge holds hematite"})


def test_a_failing_window_is_tried_again_later_not_at_once(site):
    e1 = site["earth-1"]
    e1.add_remote("dead", "http://127.0.0.1:1/commons.db")
    clock = VirtualClock(START + timedelta(minutes=10))
    s = scheduler(e1, clock, remote="dead")
    done = s.step()
    assert [d["kind"] for d in done] == ["normal"] and "unreachable" in done[0]["result"]["error"]
    assert s.tick() == RETRY  # the normal sync is still due: without the pause it would spin
    assert [w.kind for w in s.queue()] == ["normal"]


def test_a_window_makes_a_commons_not_made_yet(tmp_path, hash_embedder, engine):
    """As `cmem push` does: its pull finds nothing to take, its push makes the commons."""
    commons = tmp_path / ("commons" if engine == "dolt" else "commons.db")
    with Agent.init("earth-1", home=tmp_path / "home", embedder=hash_embedder) as e1:
        e1.add_remote("origin", f"file://{commons}")
        e1.store("The water recycler filter was changed")
        clock = VirtualClock(START + timedelta(minutes=10))
        done = scheduler(e1, clock).once()["done"]
        assert [d["kind"] for d in done] == ["normal"] and "error" not in done[0]["result"], done
        assert done[0]["result"]["pull"]["peers"] == []
        assert commons_head(e1, "earth-1/working") == e1.repo.head(e1.branch)
