"""`cmem events tail`, `cmem events flush`, `cmem listen` and the events line of `cmem status`,
against a real nats-server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from click.testing import CliRunner

from collective.cli import cli
from events_support import two_agents  # noqa: F401  (the `two` fixture)

PUMP = "The coolant pump in module C is leaking. Isolate it before the next shift."


def run(home, *args: str):
    return CliRunner().invoke(cli, [*args, "--home", str(home)])


def test_flush_then_listen_replays_decides_and_pulls(two, home, nats_server):
    earth, mars = two["earth-1"], two["mars-1"]
    stored = earth.store(PUMP, importance=0.9)
    earth.push()
    earth.close()
    mars.close()
    flushed = run(home, "events", "flush", "--agent", "earth-1", "--nats", nats_server.url, "--json")
    assert flushed.exit_code == 0, flushed.output
    assert json.loads(flushed.stdout)["outbox"] == 0 and json.loads(flushed.stdout)["published"] >= 2
    status = json.loads(run(home, "status", "--agent", "earth-1", "--json").stdout)
    assert status["events"]["outbox"] == 0 and status["events"]["last_publish"]
    listened = run(home, "listen", "--agent", "mars-1", "--nats", nats_server.url, "--for", "3", "--json")
    assert listened.exit_code == 0, listened.output
    lines = [json.loads(line) for line in listened.stdout.splitlines()]
    (decided,) = [d for d in lines if d["event_type"] == "memory.stored"]
    assert decided["entity_id"] == stored.memory.id and decided["decision"] == "now" and decided["pull"]["pulled"]
    listener_status = json.loads(run(home, "status", "--agent", "mars-1", "--json").stdout)["events"]
    assert listener_status["last_publish"] and listener_status["outbox"] == 0  # its own events went out
    shown = run(home, "show", stored.memory.id, "--agent", "mars-1", "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["origin_agent"] == "earth-1"


def test_a_peers_tail_prints_a_store(two, home, nats_server):
    earth = two["earth-1"]
    env = {**os.environ, "CMEM_HOME": str(home)}
    env.pop("_DOLTLITE_BOOTSTRAPPED", None)
    tail = subprocess.Popen([sys.executable, "-m", "collective.cli", "events", "tail", "--agent", "mars-1",
                             "--nats", nats_server.url, "--type", "memory.stored", "--count", "1", "--for", "30",
                             "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stored, deadline = [], time.monotonic() + 30
        while tail.poll() is None and time.monotonic() < deadline:  # until the tail has subscribed and heard one
            stored.append(earth.store(f"{PUMP} Check {len(stored)}.", importance=0.9).memory.id)
            assert run(home, "events", "flush", "--agent", "earth-1", "--nats", nats_server.url).exit_code == 0
            time.sleep(0.3)
        out, err = tail.communicate(timeout=10)
    finally:
        tail.kill()
    assert tail.returncode == 0, err
    event = json.loads(out.splitlines()[0])
    assert event["status"] == "received" and event["entity_id"] in stored and event["agent"] == "earth-1"


def test_bad_input_and_no_server(two, home):
    bad = run(home, "events", "tail", "--type", "memory.teleported", "--agent", "mars-1")
    assert bad.exit_code == 2 and "unknown event type" in bad.output and len(bad.output.strip().splitlines()) == 1
    nowhere = run(home, "events", "flush", "--agent", "earth-1", "--nats", "nats://127.0.0.1:9")
    assert nowhere.exit_code == 1 and nowhere.output.startswith("Error: NATS")
    assert run(home, "events", "flush", "--nats", "http://x", "--agent", "earth-1").exit_code == 2
    text = run(home, "status", "--agent", "earth-1")
    assert "in the outbox, last publish never" in text.stdout


def test_tail_and_listen_that_never_reach_nats_exit_1(two, home):
    """They keep retrying while they run (NATS may come back); a whole run without a server is
    a failure, not exit 0."""
    for command in (("events", "tail"), ("listen",)):
        done = run(home, *command, "--for", "1", "--agent", "mars-1", "--nats", "nats://127.0.0.1:9")
        assert done.exit_code == 1, (command, done.output)
        assert done.output.strip().splitlines()[-1] == \
            "Error: NATS: no server answered at nats://127.0.0.1:9 for the whole run"
