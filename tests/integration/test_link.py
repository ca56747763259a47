"""The link between Earth and Mars on a virtual clock: nothing crosses outside a window,
copies land one delay late, priority first, and after enough windows every agent on
both planets holds the same open and resolved cases."""

from __future__ import annotations

from datetime import timedelta

import pytest

from collective.agent import Agent
from collective.model.refs import QUARANTINE_BRANCH
from collective.store import open_repository

from sites import START, Planets


@pytest.fixture
def planets(tmp_path, hash_embedder):
    world = Planets(tmp_path, hash_embedder)
    try:
        yield world
    finally:
        world.close()


def mars_branches(planets: Planets) -> dict[str, str]:
    mars = planets.agents["mars-1"]
    return mars.repo.fetch("origin")


def at(minutes: float):
    return START + timedelta(minutes=minutes)


def test_nothing_crosses_outside_a_window_and_copies_land_one_delay_late(planets):
    earth = planets.agents["earth-1"]
    earth.store("Dust storm expected over the landing zone on sol 40")
    earth.push()
    planets.relay_until(at(9))  # the first window opens at 10:10
    assert "earth-1/working" not in mars_branches(planets)
    planets.relay_until(at(13))  # departed at 10:10, in flight for 4 minutes
    assert "earth-1/working" not in mars_branches(planets)
    planets.relay_until(at(14))
    assert mars_branches(planets)["earth-1/working"] == earth.repo.head(earth.branch)
    planets.relay_until(at(31))
    earth.store("The storm moved north")  # after the window closed: waits for the next one
    earth.push()
    planets.relay_until(at(69))
    assert mars_branches(planets)["earth-1/working"] != earth.repo.head(earth.branch)
    planets.relay_until(at(74))
    assert mars_branches(planets)["earth-1/working"] == earth.repo.head(earth.branch)
    assert all(START + timedelta(minutes=10) <= _time(e["at"]) for e in planets.timeline if e["event"] == "departed")


def _time(text: str):
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_priority_crosses_in_the_first_window_before_the_rest(tmp_path, hash_embedder):
    planets = Planets(tmp_path, hash_embedder, capacity=2)
    try:
        e1, e2 = planets.agents["earth-1"], planets.agents["earth-2"]
        e1.store("The coolant pump in module C is safe to operate")
        e1.push()
        e2.store("The coolant pump in module C is not safe to operate")
        e2.pull()  # opens a case on Earth, pushed to Earth's commons at once
        e2.store("Hull breach alarm in module B: evacuate", importance=1.0)  # amplitude 1.0 > 0.9
        e2.push()
        e1.store("Routine: the greenhouse lights cycle at 06:00")
        e1.push()
        planets.relay_until(at(30))
        first = [(e["branch"], e["priority"]) for e in planets.timeline
                 if e["event"] == "landed" and e["from"] == "earth" and _time(e["at"]) < at(30)]
        assert first == [(QUARANTINE_BRANCH, "cases"), ("earth-2/working", "priority")]
        planets.relay_until(at(80))
        later = [e["branch"] for e in planets.timeline if e["event"] == "landed" and e["from"] == "earth"]
        assert later[2:] == ["earth-1/working"]
    finally:
        planets.close()


def test_after_enough_windows_both_planets_hold_the_same_cases(planets):
    planets.reviewer("ana")
    e1, e2, mars = planets.agents["earth-1"], planets.agents["earth-2"], planets.agents["mars-1"]
    mars.store("The coolant pump in module C is safe to operate")
    e1.store("The coolant pump in module C is not safe to operate")
    e2.store("Airlock 2 seal passed its pressure test")
    planets.sync_all()
    planets.relay_until(at(30))
    planets.sync_all()
    planets.sync_all()
    cases = {name: {c["id"]: c["status"] for c in a.cases()} for name, a in planets.agents.items()}
    assert len(cases["mars-1"]) == 1 and cases["earth-1"] == cases["earth-2"] == cases["mars-1"]
    case_id = next(iter(cases["mars-1"]))
    assert mars.repo.select("memories", {"origin_agent": "earth-1"})[0]["disputed"]
    e2.resolve_dispute(case_id, keep="b" if e2.case(case_id)["agent_b"] == "earth-1" else "a", by="ana")
    planets.sync_all()
    assert mars.case(case_id)["status"] != "resolved"  # Mars waits for the next window
    planets.relay_until(at(90))
    planets.sync_all()
    resolved = {name: [(c["id"], c["status"], c["resolution"]) for c in agent.cases()]
                for name, agent in planets.agents.items()}
    assert resolved["mars-1"][0][1] == "resolved"
    assert resolved["earth-1"] == resolved["earth-2"] == resolved["mars-1"]
    kept = mars.repo.select("memories", {"origin_agent": "earth-1"})
    assert len(kept) == 1 and not kept[0]["disputed"]  # the verdict took effect on Mars


def test_cases_opened_on_both_planets_are_joined_once_and_not_sent_back(planets, hash_embedder):
    e1, e2 = planets.agents["earth-1"], planets.agents["earth-2"]
    e1.store("The coolant pump in module C is safe to operate")
    e1.push()
    e2.store("The coolant pump in module C is not safe to operate")
    e2.pull()  # a case on Earth
    with Agent.init("mars-2", home=planets.root / "mars", embedder=hash_embedder) as m2:
        m2.add_remote("origin", planets.sites["mars"].commons)
        planets.agents["mars-1"].store("The outer hatch of airlock 2 is sealed")
        planets.agents["mars-1"].push()
        m2.store("The outer hatch of airlock 2 is not sealed")
        m2.pull()  # another case on Mars
        m2.push()
    planets.relay_until(at(89))  # two windows, nothing new after the first
    moved = [(e["event"], e["from"]) for e in planets.timeline if e["branch"] == QUARANTINE_BRANCH]
    assert sorted(moved) == [("departed", "earth"), ("departed", "mars"), ("landed", "earth"), ("landed", "mars")]
    held = {}
    for site in ("earth", "mars"):
        repo = open_repository(planets.root / f"{site}-commons.db")
        try:
            held[site] = sorted(r["id"] for r in repo.select("quarantine", as_of=QUARANTINE_BRANCH))
        finally:
            repo.close()
    assert len(held["earth"]) == 2 and held["earth"] == held["mars"]
    e1.store("Rover 5 battery is charged")  # a third case, on Earth: it crosses once more, once
    e1.push()
    e2.store("Rover 5 battery is not charged")
    e2.pull()
    planets.relay_until(at(149))  # the third window: 12:10 to 12:30
    moved = [e["event"] for e in planets.timeline if e["branch"] == QUARANTINE_BRANCH and e["from"] == "earth"]
    assert moved == ["departed", "landed"] * 2


def _main_ids(planets: Planets, site: str) -> set[str]:
    repo = open_repository(planets.root / f"{site}-commons.db")
    try:
        if "main" not in repo.branches():
            return set()  # a commons gets main with its first promotion
        return {r["id"] for r in repo.select("memories", as_of="main")}
    finally:
        repo.close()


def test_a_promotion_proposed_on_mars_and_endorsed_on_earth_reaches_both_sites_main(planets):
    e1, e2, mars = planets.agents["earth-1"], planets.agents["earth-2"], planets.agents["mars-1"]
    memory_id = mars.store("Dust storm expected over the landing site within three days").memory.id
    mars.push()
    mars.promote(memory_id, note="seen from orbit twice")
    planets.relay_until(at(30))  # the proposal and mars-1's branch cross to Earth
    for agent in (e1, e2):
        agent.pull()
        agent.endorse(memory_id)  # the second endorsement promotes it on Earth's main
    assert memory_id in _main_ids(planets, "earth")
    assert memory_id not in _main_ids(planets, "mars")  # main never crosses: Mars lands its own
    mars.pull()
    assert mars.promotions(status="pending")[0]["endorsements"] == []  # the endorsements wait for a window
    planets.relay_until(at(90))
    mars.pull()  # takes the endorsements that crossed and lands the promotion on Mars's main
    assert memory_id in _main_ids(planets, "mars")
    assert [h.memory.id for h in mars.recall("Dust storm expected over the landing site within three days", consensus=True)] == [memory_id]
