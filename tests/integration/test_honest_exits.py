"""Exit codes that say what happened: a verdict recorded here but not shared has its
own status and says so; a pull that loses the race to share the cases retries,
on the typed NonFastForward, and succeeds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from collective import reviewer_keys
from collective.config import Home
from collective.errors import NonFastForward
from collective.model.refs import QUARANTINE_BRANCH
from collective.quarantine import cases as quarantine
from collective.store.doltlite import DoltliteRepository

PUMP = "The coolant pump in module B is safe to operate"
PUMP_TOO = "Module B's coolant pump is safe to operate"
NOT_PUMP = "The coolant pump in module B is not safe to operate"

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.usefixtures("engine")


def test_a_verdict_recorded_but_not_shared_exits_3_and_says_so(trio, cmem, home, engine):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    pump, not_pump = e1.store(PUMP).memory, m1.store(NOT_PUMP).memory
    m1.push()
    e1.pull()
    case_id = quarantine.case_id(pump.id, not_pump.id)
    ana = reviewer_keys.init(Home.at(home), "ana")
    e1.add_reviewer("ana", ana["public_key"])
    e1.add_remote("dead", "http://127.0.0.1:9/commons" + (".db" if engine == "doltlite" else ""))
    keep = "a" if min(pump.id, not_pump.id) == pump.id else "b"

    result = cmem("quarantine", "resolve", case_id, "--keep", keep, "--note", "n", "--by", "ana", "dead", "--agent", "earth-1")
    assert result.exit_code == 3, result.output
    assert result.stderr.startswith("Error: verdict recorded locally, not shared: run cmem push (")
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    (case,) = e1.cases()
    assert case["status"] == "resolved" and case["applied"]
    assert not e1.get(pump.id).disputed and e1.get(not_pump.id).disputed
    again = cmem("quarantine", "resolve", case_id, "--keep", keep, "--note", "n", "--by", "ana", "--agent", "earth-1")
    assert again.exit_code == 2 and "already resolved" in again.stderr  # a failure that wrote nothing

    pushed = cmem("push", "origin", "--agent", "earth-1", "--json")
    assert pushed.exit_code == 0 and json.loads(pushed.stdout)["quarantine"]["pushed"], pushed.output
    m1.pull()
    (theirs,) = m1.cases()
    assert theirs["status"] == "resolved" and not theirs["applied"]  # mars-1 never authorised ana


def test_the_engine_race_message_is_a_non_fast_forward(tmp_path):
    repo = DoltliteRepository.__new__(DoltliteRepository)
    for message in ("push failed (remote refs changed)", "non-fast-forward push rejected"):
        error = repo._translate_error(RuntimeError(message), remote="origin", branch=QUARANTINE_BRANCH)
        assert isinstance(error, NonFastForward) and error.branch == QUARANTINE_BRANCH


CHILD = """
    import json, sys, time
    from pathlib import Path
    from collective.agent import Agent
    from collective.quarantine import service

    name, home, folder = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    attempts = []
    real = service.Quarantine._share_once

    def share_once(self, remote, ours):
        attempts.append(1)
        if name == "earth-1" and len(attempts) == 1:
            # earth-1 fetched before earth-2 shared: wait until it has, so that earth-1 is behind
            (folder / "earth-1-ready").touch()
            while not (folder / "earth-2-done").exists():
                time.sleep(0.01)
        return real(self, remote, ours)

    service.Quarantine._share_once = share_once
    if name == "earth-2":
        while not (folder / "earth-1-ready").exists():
            time.sleep(0.01)
    with Agent.open(name, home=home) as agent:
        result = agent.pull()
    if name == "earth-2":
        (folder / "earth-2-done").touch()
    print(json.dumps({"attempts": len(attempts), "pushed": result["quarantine"]["pushed"]}))
"""


def test_two_concurrent_pulls_both_succeed_after_retrying(trio, home, tmp_path):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    e1.store(PUMP)
    e2.store(PUMP_TOO)
    not_pump = m1.store(NOT_PUMP).memory
    for agent in trio.values():
        agent.push()
        agent.close()
    env = {k: v for k, v in os.environ.items() if k != "_DOLTLITE_BOOTSTRAPPED"}
    children = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(CHILD), name, str(home), str(tmp_path)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
                for name in ("earth-1", "earth-2")]
    outcomes = {}
    for name, child in zip(("earth-1", "earth-2"), children):
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        outcomes[name] = json.loads(out.splitlines()[-1])
    assert outcomes["earth-2"] == {"attempts": 1, "pushed": True}
    assert outcomes["earth-1"] == {"attempts": 2, "pushed": True}  # refused once, caught up, pushed
    from collective.agent import Agent
    with Agent.open("mars-1", home=home) as mars:
        mars.pull()
        opened = {c["opened_by"] for c in mars.cases()}
        assert {c["memory_id_a"] for c in mars.cases()} | {c["memory_id_b"] for c in mars.cases()} >= {not_pump.id}
    assert opened == {"earth-1", "earth-2"}


def test_a_pull_that_merged_but_could_not_share_prints_its_report_and_exits_3(trio, cmem, monkeypatch):
    """The report of what the pull merged was lost when its cases could not be shared."""
    from collective.errors import CollectiveError
    from collective.quarantine import service

    e1, m1 = trio["earth-1"], trio["mars-1"]
    e1.store(PUMP)
    m1.store(NOT_PUMP)
    m1.push()

    def unreachable(self, remote):
        raise CollectiveError(f"remote {remote!r} is unreachable")
    monkeypatch.setattr(service.Quarantine, "share", unreachable)
    result = cmem("pull", "--agent", "earth-1", "--json")
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    assert report["peers"] and report["quarantine"] == {"pushed": False, "error": "remote 'origin' is unreachable"}
    assert result.stderr.startswith("Error: pull recorded locally, not shared")
    assert len(e1.cases()) == 1  # merged here


def test_sharing_cases_a_second_process_of_the_agent_already_committed_is_no_error(trio, monkeypatch):
    """Two pulls of one agent at once: the second wrote the cases the first had just committed on
    the shared branch, found nothing to commit, and exited 3 with the engine's message."""
    from collective.quarantine import service

    e1, m1 = trio["earth-1"], trio["mars-1"]
    e1.store(PUMP)
    m1.store(NOT_PUMP)
    m1.push()
    assert e1.pull()["quarantine"]["pushed"]
    # what a process that read the branch before the other committed would write again
    monkeypatch.setattr(service, "changed_cases", lambda merged, theirs: list(merged.values()))
    e1.repo.fetch("origin")
    assert e1.quarantine.share("origin")["cases"] == 1
