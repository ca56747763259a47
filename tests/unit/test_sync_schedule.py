"""Window schedules (UTC intervals, daily patterns), [sync] settings and the virtual clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collective.config import settings_from
from collective.errors import BadInput
from collective.sync.clock import VirtualClock
from collective.sync.schedule import Schedule, SyncSettings

T = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)


def test_intervals_open_and_close_in_utc():
    s = Schedule.parse(["2026-12-01T10:10Z/2026-12-01T10:30Z", "2026-12-01T12:40+02:00/2026-12-01T11:00Z"])
    assert s.window_at(T) is None
    assert s.next_window(T) == (T + timedelta(minutes=10), T + timedelta(minutes=30))
    assert s.window_at(T + timedelta(minutes=10)) is not None  # the start is inside
    assert s.window_at(T + timedelta(minutes=30)) is None      # the end is not
    assert s.next_window(T + timedelta(minutes=31))[0] == T + timedelta(minutes=40)  # 12:40+02:00 is 10:40Z
    assert s.next_window(T + timedelta(hours=2)) is None


def test_a_daily_pattern_repeats_every_day():
    s = Schedule.parse(daily=["06:00-06:30", "18:00-18:20"])
    assert s.next_window(T)[0] == T.replace(hour=18)
    assert s.next_window(T.replace(hour=19))[0] == T.replace(hour=6) + timedelta(days=1)
    assert s.window_at(T.replace(hour=6, minute=15)) is not None
    assert s.describe() == ["06:00-06:30 daily", "18:00-18:20 daily"]


def test_no_schedule_is_always_open():
    s = Schedule.parse()
    assert s.always_open and s.window_at(T) is not None and s.next_window(T)[0] == T


@pytest.mark.parametrize("windows, daily, field", [
    (["2026-12-01T10:30Z/2026-12-01T10:00Z"], [], "window"),
    (["2026-12-01T10:00Z/2026-12-01T10:00Z"], [], "window"),
    (["2026-12-01T10:00Z/2026-12-01T11:00Z", "2026-12-01T09:00Z/2026-12-01T10:01Z"], [], "window"),
    ([], ["07:00-06:00"], "daily"),
    ([], ["06:00-07:00", "06:59-08:00"], "daily"),
    ([], ["6 am"], "daily"),
    (["2026-12-01T10:00Z/2026-12-01T11:00Z"], ["06:00-07:00"], "window"),
])
def test_bad_schedules_are_refused(windows, daily, field):
    with pytest.raises(BadInput) as refused:
        Schedule.parse(windows, daily)
    assert refused.value.field == field and "\n" not in str(refused.value)


@pytest.mark.parametrize("raw, problem", [
    ({"delay": -1}, "[sync] delay must be from 0 to 31622400 seconds, got -1"),
    ({"interval": 0}, "[sync] interval must be more than 0 minutes, got 0"),
    ({"capacity": -2}, "[sync] capacity must be at least 0, got -2"),
    ({"windows": "10:00"}, "[sync] windows must be a list, got '10:00'"),
    ({"delay": float("nan")}, "[sync] delay must be a finite number, got nan"),
    ({"priority_amplitude": 1000000}, "[sync] priority_amplitude must be from 0 to 2, got 1000000"),  # an amplitude
    ({"every": 3}, "[sync] has unknown setting(s) every")])
def test_bad_sync_settings_are_refused(raw, problem):
    with pytest.raises(BadInput) as refused:
        settings_from(SyncSettings, {"sync": raw})
    assert refused.value.field == "cmem.toml" and refused.value.problem == problem


def test_command_line_options_override_the_settings():
    base = settings_from(SyncSettings, {"sync": {"daily": ["06:00-06:30"], "interval": 30, "delay": 240}})
    assert base.merged(interval=None, windows=(), daily=()).schedule == base.schedule
    over = base.merged(interval=5, windows=("2026-12-01T10:00Z/2026-12-01T11:00Z",), daily=())
    assert over.interval == 5 and over.delay == 240 and over.schedule.intervals and not over.schedule.daily


@given(st.lists(st.tuples(st.integers(0, 24 * 60), st.integers(1, 120)), max_size=6), st.integers(0, 3 * 24 * 60))
def test_window_at_and_next_window_agree(spans, minute):
    if not spans:
        return  # no schedule: always open (tested above)
    texts = [f"{(T + timedelta(minutes=s)).isoformat()}/{(T + timedelta(minutes=s + d)).isoformat()}" for s, d in spans]
    try:
        s = Schedule.parse(texts)
    except BadInput:
        return  # overlapping spans
    moment = T + timedelta(minutes=minute)
    inside = [(a, b) for a, b in s.intervals if a <= moment < b]
    assert s.window_at(moment) == (inside[0] if inside else None)
    upcoming = s.next_window(moment)
    assert upcoming is None or upcoming[1] > moment


def test_the_virtual_clock_moves_only_when_slept_on():
    clock = VirtualClock(T)
    clock.sleep(90)
    assert clock.now() == T + timedelta(seconds=90)
    clock.set(T)  # never back
    assert clock.now() == T + timedelta(seconds=90)
    with pytest.raises(ValueError):
        VirtualClock(datetime(2026, 1, 1))


def test_a_link_joins_two_named_sites_and_says_which_branches_cross():
    from collective.model.refs import QUARANTINE_BRANCH
    from collective.sync.link import CASES, DREAM, WORKING, Link, Site, rank

    earth, mars = Site("earth", "file:///srv/earth.db"), Site("mars", "http://127.0.0.1:8080/mars.db")
    assert Link(earth, mars, delay=720).delay == 720
    for bad in (lambda: Link(earth, Site("earth", "file:///srv/other.db")), lambda: Link(earth, mars, delay=-1),
                lambda: Site("Mars!", "file:///srv/m.db"), lambda: Site("mars", "ftp://x/m.db")):
        with pytest.raises(BadInput):
            bad()
    assert [rank(b) for b in (QUARANTINE_BRANCH, "earth-1/working", "earth-1/dream/20261201-101500", "main")] == \
        [CASES, WORKING, DREAM, None]
