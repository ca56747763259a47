"""`cmem sync`: bad schedules refused in one line (exit 2) on the command line and in
cmem.toml, the plan as JSON, and `sync run` stopping cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from click.testing import CliRunner

from collective.agent import Agent
from collective.cli import cli
from events_support import two_agents  # noqa: F401  (the `two` fixture)

BAD = [
    (["--window", "2026-12-01T11:00Z/2026-12-01T10:00Z"], "window: 2026-12-01T11:00Z/2026-12-01T10:00Z ends before it starts"),
    (["--window", "2026-12-01T10:00Z/2026-12-01T11:00Z", "--window", "2026-12-01T10:30Z/2026-12-01T12:00Z"],
     "window: 2026-12-01T10:00Z/2026-12-01T11:00Z overlaps 2026-12-01T10:30Z/2026-12-01T12:00Z"),
    (["--daily", "18:00-06:00"], "daily: 18:00-06:00 ends before it starts (split a window that crosses midnight in two)"),
    (["--daily", "06:00-07:00", "--daily", "06:30-08:00"], "daily: 06:00-07:00 overlaps 06:30-08:00"),
    (["--window", "tomorrow"], "window: 'tomorrow' is not START/END, e.g. 2026-12-01T10:00Z/2026-12-01T10:30Z"),
    (["--interval", "-5"], "interval: must be zero or more minutes, got -5.0"),
]


@pytest.fixture
def earth(home, hash_embedder, tmp_path):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        agent.store("The pump is safe", importance=1.0)
    return home


def invoke(home, *args):
    return CliRunner().invoke(cli, [*args, "--home", str(home)])


@pytest.mark.parametrize("command", ["plan", "once"])
@pytest.mark.parametrize("args, line", BAD, ids=[b[1].split(":")[0] + str(i) for i, b in enumerate(BAD)])
def test_bad_schedules_are_refused_in_one_line(earth, command, args, line):
    result = invoke(earth, "sync", command, *args)
    assert result.exit_code == 2 and result.stdout == "" and result.stderr == f"Error: {line}\n"


def test_a_negative_delay_is_refused_by_the_relay(tmp_path):
    result = CliRunner().invoke(cli, ["sync", "relay", f"earth=file://{tmp_path}/e.db", f"mars=file://{tmp_path}/m.db",
                                      "--state", str(tmp_path / "relay"), "--delay", "-240"])
    assert result.exit_code == 2 and result.stderr == "Error: delay: must be zero or more seconds, got -240.0\n"
    assert not (tmp_path / "relay").exists()


@pytest.mark.parametrize("toml, line", [
    ('[sync]\nwindows = ["2026-12-01T11:00Z/2026-12-01T10:00Z"]\n',
     "window: 2026-12-01T11:00Z/2026-12-01T10:00Z ends before it starts"),
    ('[sync]\ndaily = ["06:00-07:00", "06:30-08:00"]\n', "daily: 06:00-07:00 overlaps 06:30-08:00"),
    ("[sync]\ndelay = -1\n", "cmem.toml: [sync] delay must be from 0 to 31622400 seconds, got -1"),
    ("[sync]\nwindow = []\n", "cmem.toml: [sync] has unknown setting(s) window"),
])
def test_bad_schedules_in_cmem_toml_are_refused_when_loading(earth, toml, line):
    (earth / "cmem.toml").write_text((earth / "cmem.toml").read_text() + toml)
    result = invoke(earth, "sync", "plan")
    assert result.exit_code == 2 and result.stderr == f"Error: {line}\n"


def test_plan_shows_the_queue_and_the_next_window(earth):
    (earth / "cmem.toml").write_text((earth / "cmem.toml").read_text() + '[sync]\ndaily = ["06:00-06:30"]\n')
    result = invoke(earth, "sync", "plan", "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert set(plan) == {"now", "remote", "open", "window", "next_window", "interval_minutes", "last_normal",
                         "schedule", "queue"}
    assert plan["schedule"] == ["06:00-06:30 daily"]
    assert plan["next_window"]["start"].endswith("T06:00:00.000000Z") or plan["open"]
    assert [w["kind"] for w in plan["queue"]] == ["priority", "normal"]


def test_sync_run_stops_cleanly_on_sigterm(earth):
    env = {**os.environ, "CMEM_HOME": str(earth)}
    env.pop("_DOLTLITE_BOOTSTRAPPED", None)
    daemon = subprocess.Popen([sys.executable, "-m", "collective.cli", "sync", "run", "--json"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [json.loads(daemon.stdout.readline()) for _ in range(2)]  # the first window's work is done
        assert [line["kind"] for line in lines] == ["priority", "normal"]
    finally:
        daemon.send_signal(signal.SIGTERM)
        rest, err = daemon.communicate(timeout=60)
    assert daemon.returncode == 0 and rest == "" and err == "stopped\n"


def test_sync_run_listens_and_runs_the_queued_pull_in_the_window(two, home, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    mars.pull()
    mars.push()
    stored = earth.store("Sample 14 from the crater rim contains hematite", importance=0.4)  # 0.4 x 0.5: queue
    earth.push()
    earth.close()
    mars.close()
    assert invoke(home, "events", "flush", "--agent", "earth-1", "--nats", nats_server.url).exit_code == 0
    ran = invoke(home, "sync", "run", "--listen", "--agent", "mars-1", "--nats", nats_server.url,
                 "--interval", "600", "--for", "4", "--json")
    assert ran.exit_code == 0, ran.output
    lines = [json.loads(line) for line in ran.stdout.splitlines()]
    decided = [d for d in lines if d.get("event_type") == "memory.stored"]
    assert decided and decided[0]["decision"] == "queue"
    kinds = [w["kind"] for w in lines if "kind" in w]
    assert kinds[0] == "normal" and "queued" in kinds
    with Agent.open("mars-1", home=home) as again:
        assert again.tables.decisions.open() == []  # the queued pull ran in the window
        assert again.repo.select("memories", {"id": stored.memory.id})


def test_once_against_an_unreachable_commons_says_so_in_one_line(earth):
    assert invoke(earth, "remote", "add", "dead", "http://127.0.0.1:1/commons.db").exit_code == 0
    result = invoke(earth, "sync", "once", "--remote", "dead", "--json")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("Error: 2 of 2 piece(s) of sync work failed, the rest was done: priority: ")
    done = json.loads(result.stdout)["done"]
    assert [d["kind"] for d in done] == ["priority", "normal"] and all("error" in d["result"] for d in done)


def test_sync_once_makes_a_commons_not_made_yet(home, hash_embedder, tmp_path):
    """`remote add` says the first push makes the commons: the window's push is one (no
    priority memory here, whose push would come first and make it)."""
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        agent.store("The greenhouse lights cycle at 06:00")
    for _ in range(2):
        result = invoke(home, "sync", "once")
        assert result.exit_code == 0 and "FAILED" not in result.stdout, result.output
    assert (tmp_path / "commons.db").exists()
