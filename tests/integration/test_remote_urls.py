"""What a remote's name and URL may be, checked when the remote is added: server URLs with a
host, a port from 1 to 65535 and the engine's path; file URLs percent-decoded, as RFC 8089
and Path.as_uri() mean them, by add, push, pull and fetch alike; no agent's own database
taken for a commons; no remote name the engine would refuse."""

from __future__ import annotations

import json
import sqlite3

import pytest

from collective.agent import Agent


@pytest.fixture
def earth(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        agent.store("The coolant pump in module B is safe to operate")
    return home


def refused(result, field: str) -> None:
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"Error: {field}: "), result.stderr


def remotes(cmem) -> dict:
    return json.loads(cmem("remote", "list", "--json").stdout)


MALFORMED = ["http://host:abc/c.db", "http://host:99999/c.db", "http://host:-1/c.db", "http://host:0/c.db",
             "http://host:+80/c.db", "http://ho st:8080/c.db", "http://host:8080/c.db?q=1",
             "http://host:8080/c.db#top", "https://[::zz]:443/c.db"]


@pytest.mark.usefixtures("engine")
@pytest.mark.parametrize("url", MALFORMED)
def test_a_malformed_server_url_is_refused_when_added(earth, cmem, tmp_path, url, engine):
    here = tmp_path / ("commons" if engine == "dolt" else "commons.db")
    assert cmem("remote", "add", "origin", f"file://{here}").exit_code == 0
    before = remotes(cmem)
    refused(cmem("remote", "add", "srv", url), "url")
    refused(cmem("remote", "set-url", "origin", url), "url")
    assert remotes(cmem) == before


def test_a_doltlite_commons_server_url_names_one_db_file(earth, cmem):
    """`cmem serve-commons` serves the NAME.db files of one folder, and nothing else."""
    for url in ("http://host:8080/name", "http://host:8080/sub/c.db", "http://host:8080/c%20d.db"):
        refused(cmem("remote", "add", "srv", url), "url")
    assert remotes(cmem) == {}
    for n, url in enumerate(("http://127.0.0.1:9/c.db", "https://commons.example.org/mars-1.db",
                             "http://[::1]:8080/c.db", "http://commons_1:80/a-b.c.db", "http://host.:8080/c.db")):
        added = cmem("remote", "add", f"srv{n}", url, "--json")
        assert added.exit_code == 0, added.output
        assert json.loads(added.stdout) == {"name": f"srv{n}", "url": url, "commons": None}


@pytest.mark.parametrize("engine", ["dolt"], indirect=True)
def test_a_dolt_agent_takes_a_remotesapi_url(home, cmem, engine):
    """Another sql-server's remotesapi names a database, without .db, and may name a user."""
    assert cmem("init", "--agent", "earth-1").exit_code == 0
    assert cmem("remote", "add", "srv", "http://commons-agent@127.0.0.1:9/commons").exit_code == 0
    refused(cmem("remote", "add", "bad", "http://commons-agent@127.0.0.1:70000/commons"), "url")


# --- file URLs: percent-decoded, everywhere --------------------------------------------------

@pytest.mark.usefixtures("engine")
def test_a_file_url_means_its_decoded_path_to_add_push_pull_and_fetch(earth, cmem, tmp_path, engine, hash_embedder):
    folder = tmp_path / "dir with space ünï"
    folder.mkdir()
    commons = folder / ("commons" if engine == "dolt" else "commons.db")
    url = commons.as_uri()  # file:///.../dir%20with%20space%20%C3%BCn%C3%AF/commons.db
    assert "%20" in url
    added = cmem("remote", "add", "origin", url, "--json")
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout) == {"name": "origin", "url": f"file://{commons}", "commons": False}
    assert cmem("push").exit_code == 0 and commons.exists()
    assert json.loads(cmem("remote", "add", "again", url, "--json").stdout)["commons"] is True
    with Agent.init("mars-1", home=earth, embedder=hash_embedder) as mars:
        mars.add_remote("origin", url)
        assert "earth-1/working" in mars.repo.fetch("origin")
        assert [p["peer"] for p in mars.pull("origin")["peers"]] == ["earth-1"]
    assert not [p for p in tmp_path.rglob("*%*")]  # no file named with an escape


def test_an_escaped_percent_names_a_percent(earth, cmem, tmp_path):
    assert cmem("remote", "add", "origin", f"file://{tmp_path}/pct%2541.db").exit_code == 0
    assert remotes(cmem) == {"origin": f"file://{tmp_path / 'pct%41.db'}"}
    assert cmem("push").exit_code == 0 and (tmp_path / "pct%41.db").exists()
    assert not list(tmp_path.glob("pctA*"))
    with Agent.open("earth-1", home=earth) as agent:  # a remote put back as it was kept: the same path
        agent.repo.remove_remote("origin")
        agent.repo.add_remote("origin", f"file://{tmp_path / 'pct%41.db'}", kept=True)
        assert agent.remotes() == {"origin": f"file://{tmp_path / 'pct%41.db'}"}
        assert "earth-1/working" in agent.repo.fetch("origin")


@pytest.mark.parametrize("engine", ["dolt"], indirect=True)
@pytest.mark.parametrize("name", ["pct%2541", "q%3Fx", "h%23x"])
def test_a_dolt_agent_refuses_a_path_it_would_read_otherwise(home, cmem, tmp_path, engine, name):
    """Dolt reads the decoded path it keeps as a URL again at each push: '%', '?' and '#' would change it."""
    assert cmem("init", "--agent", "earth-1").exit_code == 0
    refused(cmem("remote", "add", "origin", f"file://{tmp_path}/{name}"), "url")
    assert remotes(cmem) == {}


@pytest.mark.parametrize("url", ["file:///tmp/a?b/c.db", "file:///tmp/c.db#x", "file:///tmp/%ff.db",
                                 "file:///tmp/a%00.db"])
def test_a_file_url_that_names_no_path_is_refused(earth, cmem, url):
    refused(cmem("remote", "add", "origin", url), "url")
    assert remotes(cmem) == {}


# --- an agent's own database is no commons ----------------------------------------------------

def test_an_agents_own_database_is_no_commons(earth, cmem, hash_embedder):
    Agent.init("mars-1", home=earth, embedder=hash_embedder).close()
    mars_db = earth / "agents" / "mars-1" / "memory.db"
    for name, path in (("self", earth / "agents" / "earth-1" / "memory.db"), ("other", mars_db)):
        refused(cmem("remote", "add", name, f"file://{path}"), "remote")
    assert remotes(cmem) == {}
    with Agent.open("earth-1", home=earth) as agent:  # one added before the check: push and fetch refuse it
        agent.repo._vc("remote", "add", "other", f"file://{mars_db}")
    refused(cmem("push", "other"), "remote")
    refused(cmem("pull", "other"), "remote")
    with sqlite3.connect(mars_db) as db:
        assert sorted(r[0] for r in db.execute("SELECT name FROM dolt_branches")) == ["main", "mars-1/working"]


@pytest.mark.parametrize("engine", ["dolt"], indirect=True)
def test_a_dolt_databases_own_storage_is_no_commons(home, cmem, tmp_path, engine):
    """.dolt/noms is in a remote folder's format: a push there would write into that database."""
    assert cmem("init", "--agent", "earth-1").exit_code == 0
    storage = tmp_path / "db" / ".dolt" / "noms"
    storage.mkdir(parents=True)
    refused(cmem("remote", "add", "origin", f"file://{storage}"), "remote")


# --- remote names -------------------------------------------------------------------------------

@pytest.mark.usefixtures("engine")
def test_a_remote_name_the_engine_refuses_is_bad_input(earth, cmem, tmp_path, engine):
    url = f"file://{tmp_path / ('commons' if engine == 'dolt' else 'commons.db')}"
    for name in ("a.b", "x.", "a.lock", "a..b"):
        refused(cmem("remote", "add", name, url), "name")
    for name in ("a_b", "A-1", "9"):
        assert cmem("remote", "add", name, url).exit_code == 0
    assert sorted(remotes(cmem)) == ["9", "A-1", "a_b"]
