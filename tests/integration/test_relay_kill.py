"""A relay killed mid-copy (SIGKILL, a real process) resumes without loss or duplicates."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from collective.agent import Agent
from collective.model.refs import QUARANTINE_BRANCH
from collective.store import open_repository

EARTH_AGENTS = [f"earth-{n}" for n in range(1, 9)]


def relay(tmp_path, *extra: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "_DOLTLITE_BOOTSTRAPPED"}
    return subprocess.Popen([sys.executable, "-m", "collective.cli", "sync", "relay",
                             f"earth=file://{tmp_path / 'earth.db'}", f"mars=file://{tmp_path / 'mars.db'}",
                             "--state", str(tmp_path / "relay"), "--poll", "0.05", "--json", *extra],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def contents(path) -> dict:
    """Every crossing branch of a commons: its head and its rows (memories, cases)."""
    repo = open_repository(path)
    try:
        out = {}
        for branch, head in repo.branches().items():
            if branch == "main":
                continue
            ids = [r["id"] for r in repo.select("memories", columns=("id",), as_of=branch)]
            cases = sorted((r["id"], r["status"]) for r in repo.select("quarantine", as_of=branch))
            out[branch] = {"head": head, "memories": sorted(ids), "unique": len(set(ids)) == len(ids), "cases": cases}
        return out
    finally:
        repo.close()


def test_a_relay_killed_mid_copy_resumes_without_loss_or_duplicates(tmp_path, hash_embedder):
    home = tmp_path / "earth-home"
    for n, name in enumerate(EARTH_AGENTS):
        with Agent.init(name, home=home, embedder=hash_embedder) as agent:
            agent.add_remote("origin", f"file://{tmp_path / 'earth.db'}")
            agent.store_many([{"content": f"{name} logged reading {k} of sensor {n}"} for k in range(5)])
            agent.store("The coolant pump in module C is safe to operate" if n == 0 else
                        "The coolant pump in module C is not safe to operate" if n == 1 else f"{name} is online")
            agent.pull() if n == 1 else None  # a case on Earth's quarantine branch
            agent.push()
    with Agent.init("mars-1", home=tmp_path / "mars-home", embedder=hash_embedder) as mars:
        mars.add_remote("origin", f"file://{tmp_path / 'mars.db'}")
        mars.store("Mars base pressure nominal")
        mars.push()

    first = relay(tmp_path)
    seen = []
    try:
        for line in first.stdout:
            seen.append(json.loads(line))
            if seen[-1]["event"] == "landed":
                break
        first.send_signal(signal.SIGKILL)  # while the other copies are landing
    finally:
        first.communicate(timeout=30)
    assert first.returncode == -signal.SIGKILL
    earth, mars_before = contents(tmp_path / "earth.db"), contents(tmp_path / "mars.db")
    assert any(b not in mars_before or mars_before[b]["head"] != earth[b]["head"] for b in earth)  # unfinished

    second = relay(tmp_path, "--until-idle")
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    mars = contents(tmp_path / "mars.db")
    earth = contents(tmp_path / "earth.db")
    for branch in [*(f"{name}/working" for name in EARTH_AGENTS), QUARANTINE_BRANCH]:
        assert mars[branch]["memories"] == earth[branch]["memories"], branch
        assert mars[branch]["unique"], branch
    for name in EARTH_AGENTS:
        assert mars[f"{name}/working"]["head"] == earth[f"{name}/working"]["head"]
    assert mars[QUARANTINE_BRANCH]["cases"] == earth[QUARANTINE_BRANCH]["cases"]
    assert len(earth[QUARANTINE_BRANCH]["cases"]) == 1
    assert earth["mars-1/working"]["head"] == mars["mars-1/working"]["head"]
    resumed = [json.loads(line) for line in out.splitlines()]
    landed = [e["branch"] for e in seen + resumed if e["event"] == "landed"]
    assert len(landed) == len(set(landed))  # each branch landed once, the interrupted one included
