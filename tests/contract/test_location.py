"""Where an agent's database lives: the engine chosen for a new agent, a doltlite file
that appears only when complete, and a Dolt sql-server managed for the home (started
on demand, a stale pid file replaced)."""

from __future__ import annotations


import pytest

from collective.errors import BadInput
from collective.store import DB_FILE, Location
from collective.store.dolt_process import ManagedDoltServer


def test_the_engine_is_the_callers_choice_not_the_environments(tmp_path, monkeypatch):
    monkeypatch.setenv("CMEM_BACKEND", "dolt")
    monkeypatch.setenv("CMEM_DOLT_SERVER", "mysql://root@127.0.0.1:1")
    assert Location.new(tmp_path / "a", tmp_path, "a").engine == "doltlite"
    shared = Location.new(tmp_path / "b", tmp_path, "b-1", backend="dolt", dolt_server="mysql://u:p@db.example:3307/")
    assert shared.database.startswith("cmem_") and shared.database.endswith("_b_1")
    assert shared.url == f"mysql://u:p@db.example:3307/{shared.database}"
    own = Location.new(tmp_path / "c", tmp_path, "c", backend="dolt", dolt_url="mysql://u@db.example/agent_c")
    assert (own.database, own.url) == ("agent_c", "mysql://u@db.example/agent_c")
    with pytest.raises(BadInput):
        Location.new(tmp_path / "d", tmp_path, "d", backend="postgres")
    with pytest.raises(BadInput):
        Location.new(tmp_path / "e", tmp_path, "e", dolt_url="mysql://u@db.example/e")


def test_a_doltlite_database_appears_only_when_complete(tmp_path):
    location = Location.new(tmp_path / "a", tmp_path, "a")
    repo = location.create()
    repo.migrate(author="a", now="2026-01-01T00:00:00.000000Z")
    repo.close()
    assert Location.find(location.folder, tmp_path) is None
    location.finish()
    assert Location.find(location.folder, tmp_path) == location
    assert (location.folder / DB_FILE).read_bytes()[:4] == b"CTLD"
    repo = location.open()
    try:
        assert repo.engine == "doltlite" and repo.schema_version() > 0
    finally:
        repo.close()
    other = Location.new(tmp_path / "b", tmp_path, "b")
    other.create().close()
    other.discard()
    assert list(other.folder.iterdir()) == []


def test_managed_server_starts_on_demand_and_replaces_a_stale_pid(tmp_path, dolt_binary):
    home = tmp_path / "home"
    location = Location.new(home / "agents" / "earth-1", home, "earth-1", backend="dolt")
    server = ManagedDoltServer(location.server_dir)
    try:
        repo = location.create()
        repo.migrate(author="earth-1", now="2026-01-01T00:00:00.000000Z")
        repo.insert("skip_links", [{"source_id": "a", "target_id": "b", "link_type": "consensus",
                                    "weight": 1.0, "created_by": "earth-1", "created_at": "2026"}])
        repo.close()
        location.finish()
        assert location.describe() == {"engine": "dolt", "database": location.database,
                                       "server": f"managed sql-server in {home / 'dolt-server'}"}
        pid = server.pid()
        assert pid is not None
        server.stop()
        assert server.pid() is None
        server.pid_file.write_text("999999\n")  # a crash left a pid file behind
        found = Location.find(home / "agents" / "earth-1", home)
        assert found == location
        repo = found.open()
        try:
            assert repo.engine == "dolt" and repo.count("skip_links") == 1
        finally:
            repo.close()
        assert server.pid() not in (None, 999999)
    finally:
        server.stop()


def test_a_failed_create_leaves_no_database(tmp_path, dolt_server):
    home = tmp_path / "home"
    location = Location.new(home / "agents" / "mars-1", home, "mars-1", backend="dolt", dolt_server=dolt_server)
    assert location.url == f"{dolt_server}/{location.database}"
    repo = location.create()
    repo.close()
    location.discard()
    assert Location.find(location.folder, home) is None
    again = location.create()  # the name is free again
    again.close()
    location.discard()
