"""Agents on the Dolt sql-server engine: a three-agent story, engines that cannot share a
commons, a server killed mid-pull, another server's remotesapi as the commons.
(The store's own behaviour on Dolt is in tests/contract/.)"""

from __future__ import annotations

import os
import signal

import pytest
from click.testing import CliRunner

from collective import merge
from collective.agent import Agent
from collective.cli import cli
from collective.errors import BadInput, CollectiveError
from collective.store.dolt_process import ManagedDoltServer


def test_three_agents_on_one_sql_server_with_a_file_commons(tmp_path, dolt_server, monkeypatch, real_embedder):
    monkeypatch.setenv("CMEM_DOLT_SERVER", dolt_server)
    home, commons = tmp_path / "home", tmp_path / "commons"
    commons.mkdir()
    agents = {name: Agent.init(name, home=home, backend="dolt", embedder=real_embedder)
              for name in ("earth-1", "earth-2", "mars-1")}
    try:
        for agent in agents.values():
            assert agent.location.engine == "dolt"
            agent.add_remote("origin", f"file://{commons}")
        agents["earth-1"].store("The coolant pump in module C is safe to operate")
        agents["earth-2"].store("The coolant pump in module C is safe to operate.")
        agents["mars-1"].store("The coolant pump in module C is not safe to operate")
        for agent in agents.values():
            agent.push()
        report = agents["earth-1"].pull()
        by_peer = {p["peer"]: p for p in report["peers"]}
        assert by_peer["earth-2"]["summary"]["constructive"] == 1
        assert by_peer["mars-1"]["summary"]["destructive"] == 1
        cases = agents["earth-1"].cases()
        assert len(cases) == 1 and cases[0]["status"] == "pending"
        assert report["quarantine"]["pushed"] is True
        for agent in agents.values():
            agent.push()
        for agent in list(agents.values()) * 2:
            agent.pull()
        open_cases = [sorted(c["id"] for c in agent.cases()) for agent in agents.values()]
        assert open_cases[0] == open_cases[1] == open_cases[2] and len(open_cases[0]) == 2
        head = agents["mars-1"].repo.head(agents["mars-1"].branch)
        assert agents["mars-1"].pull()["peers"][0]["status"] == "unchanged"
        assert agents["mars-1"].repo.head(agents["mars-1"].branch) == head
    finally:
        for agent in agents.values():
            agent.close()


def test_a_doltlite_agent_cannot_use_a_dolt_commons(tmp_path, dolt_server, monkeypatch, hash_embedder):
    monkeypatch.setenv("CMEM_DOLT_SERVER", dolt_server)
    home, folder = tmp_path / "home", tmp_path / "dolt-commons"
    folder.mkdir()
    with Agent.init("lite", home=home, embedder=hash_embedder) as lite:
        with pytest.raises(BadInput, match="Dolt remote folder"):
            lite.add_remote("origin", f"file://{folder}")
    with Agent.init("heavy", home=home, backend="dolt", embedder=hash_embedder) as heavy:
        heavy.store("x marks the spot")
        lite_file = tmp_path / "lite.db"
        with Agent.open("lite", home=home, embedder=hash_embedder) as lite:
            lite.add_remote("origin", f"file://{lite_file}")
            lite.store("a doltlite memory")
            lite.push()
        head = heavy.repo.head(heavy.branch)
        result = CliRunner().invoke(cli, ["remote", "add", "origin", f"file://{lite_file}",
                                          "--home", str(home), "--agent", "heavy"])
        assert result.exit_code == 2
        assert "doltlite commons" in result.output and len(result.output.strip().splitlines()) == 1
        assert heavy.repo.head(heavy.branch) == head and heavy.remotes() == {}


def test_killing_the_server_mid_pull_leaves_the_branch_and_the_next_pull_works(tmp_path, dolt_binary,
                                                                               hash_embedder, monkeypatch):
    home, commons = tmp_path / "home", tmp_path / "commons"
    commons.mkdir()
    server = ManagedDoltServer(home / "dolt-server")
    try:
        with Agent.init("earth-1", home=home, backend="dolt", embedder=hash_embedder) as peer:
            peer.add_remote("origin", f"file://{commons}")
            peer.store_many([{"content": f"peer observation number {n}"} for n in range(20)])
            peer.push()
        receiver = Agent.init("mars-1", home=home, backend="dolt", embedder=hash_embedder)
        receiver.add_remote("origin", f"file://{commons}")
        receiver.store("something mars-1 knew before")
        before = receiver.repo.head(receiver.branch)
        original_apply = merge.apply

        def apply_then_die(repo, plan, *, watermark):
            original_apply(repo, plan, watermark=watermark)
            os.kill(server.pid(), signal.SIGKILL)  # the rows are written, nothing is committed yet

        monkeypatch.setattr(merge, "apply", apply_then_die)
        with pytest.raises(CollectiveError):
            receiver.pull()
        monkeypatch.setattr(merge, "apply", original_apply)
        try:
            receiver.close()
        except CollectiveError:
            pass
        with Agent.open("mars-1", home=home, embedder=hash_embedder) as again:  # restarts the server
            assert again.repo.head(again.branch) == before
            assert again.repo.count("memories") == 1
            report = again.pull()
            assert report["peers"][0]["status"] == "merged"
            assert again.repo.count("memories") == 21
    finally:
        server.stop()


def test_another_sql_servers_remotesapi_as_the_commons(tmp_path, dolt_server, monkeypatch, real_embedder,
                                                       remotesapi_commons_at):
    with remotesapi_commons_at(tmp_path / "commons-server") as url:
        monkeypatch.setenv("CMEM_DOLT_SERVER", dolt_server)
        home = tmp_path / "home"
        with Agent.init("earth-1", home=home, backend="dolt", embedder=real_embedder) as earth, \
                Agent.init("mars-1", home=home, backend="dolt", embedder=real_embedder) as mars:
            for agent in (earth, mars):
                agent.add_remote("origin", url)
            earth.store("Airlock 2 outer door seal passed its pressure test")
            mars.store("Airlock 2 outer door seal failed its pressure test")
            earth.push()
            mars.push()
            report = mars.pull()
            assert report["peers"][0]["peer"] == "earth-1"
            assert len(mars.repo.select("memories", {"origin_agent": "earth-1"})) == 1


def test_a_port_taken_before_the_server_binds_it_is_left_for_another(tmp_path, monkeypatch, dolt_binary):
    # a port found free can be taken by another process before dolt binds it (seen in the suite:
    # "bind: address already in use"); the server then starts on another port
    import socket

    from collective.store import dolt_process

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))  # bound, not listening: dolt cannot bind it, and nothing answers there
    ports = iter([taken.getsockname()[1]])
    free = dolt_process.free_port
    monkeypatch.setattr(dolt_process, "free_port", lambda: next(ports, None) or free())
    server = ManagedDoltServer(tmp_path / "server")
    (tmp_path / "server").mkdir()
    try:
        port = server.start()
        assert port != taken.getsockname()[1] and server.running()
        assert "address already in use" in server.log_file.read_text()
    finally:
        server.stop()
        taken.close()
