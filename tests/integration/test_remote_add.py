"""`remote add` checks its target: a commons, nothing yet (the first push makes it), or refused."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.usefixtures("engine")


def test_remote_add_says_whether_a_commons_is_there(agent_home, cmem, tmp_path, engine):
    missing = tmp_path / ("later" if engine == "dolt" else "later.db")
    result = cmem("remote", "add", "later", f"file://{missing}", "--agent", "earth-1")
    assert result.exit_code == 0 and "no commons there yet: the first push makes it" in result.stdout
    assert cmem("push", "later", "--agent", "earth-1").exit_code == 0
    again = cmem("remote", "add", "again", f"file://{missing}", "--agent", "earth-1", "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["commons"] is True
    server = cmem("remote", "add", "srv", "http://127.0.0.1:9/c.db", "--agent", "earth-1", "--json")
    assert json.loads(server.stdout)["commons"] is None


def test_remote_add_refuses_a_file_that_is_no_commons(agent_home, cmem, tmp_path):
    junk = tmp_path / "notes.db"
    junk.write_bytes(b"\x00\x01 not a database " * 100)
    result = cmem("remote", "add", "junk", f"file://{junk}", "--agent", "earth-1")
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: remote: ")
    assert cmem("remote", "list", "--agent", "earth-1", "--json").stdout.strip() == "{}"


@pytest.fixture
def agent_home(home, hash_embedder):
    from collective.agent import Agent
    Agent.init("earth-1", home=home, embedder=hash_embedder).close()
    return home


def test_a_remote_is_removed_and_pointed_elsewhere(agent_home, cmem, tmp_path, engine):
    """Following the README, an HTTP commons could not be added where `origin` was a file:
    there was no `remote remove` and no `remote set-url`."""
    here, there = (tmp_path / n for n in (("a", "b") if engine == "dolt" else ("a.db", "b.db")))
    assert cmem("remote", "add", "origin", f"file://{here}", "--agent", "earth-1").exit_code == 0
    moved = cmem("remote", "set-url", "origin", f"file://{there}", "--agent", "earth-1", "--json")
    assert moved.exit_code == 0, moved.output
    assert json.loads(moved.stdout) == {"name": "origin", "url": f"file://{there}", "previous": f"file://{here}",
                                        "commons": False}
    assert cmem("push", "--agent", "earth-1").exit_code == 0 and there.exists()
    bad = cmem("remote", "set-url", "origin", "ftp://nowhere", "--agent", "earth-1")
    assert bad.exit_code == 2 and len(bad.stderr.splitlines()) == 1
    assert json.loads(cmem("remote", "list", "--agent", "earth-1", "--json").stdout) == {"origin": f"file://{there}"}
    removed = cmem("remote", "remove", "origin", "--agent", "earth-1", "--json")
    assert removed.exit_code == 0 and json.loads(removed.stdout)["removed"] is True
    assert cmem("remote", "list", "--agent", "earth-1", "--json").stdout.strip() == "{}"
    missing = cmem("remote", "remove", "origin", "--agent", "earth-1")
    assert missing.exit_code == 2 and "no remote named 'origin'" in missing.stderr


@pytest.mark.parametrize("engine", ["doltlite"], indirect=True)
def test_an_empty_file_is_no_commons_yet_and_the_next_push_makes_it(agent_home, cmem, tmp_path, engine):
    """A first push killed before the engine wrote a byte leaves an empty commons.db: it is
    nothing yet (not "no commons database", which no agent could get past), the next push
    makes the commons there and a peer pulls from it."""
    empty = tmp_path / "commons.db"
    empty.touch()
    added = cmem("remote", "add", "origin", f"file://{empty}", "--agent", "earth-1")
    assert added.exit_code == 0 and "no commons there yet" in added.stdout, added.output
    pulled = cmem("pull", "--agent", "earth-1")
    assert pulled.exit_code == 1 and "no commons at" in pulled.stderr, pulled.output
    assert cmem("store", "The relay on mast 4 was reset at dawn", "--agent", "earth-1").exit_code == 0
    assert cmem("push", "--agent", "earth-1").exit_code == 0 and empty.stat().st_size > 0
    assert cmem("init", "--agent", "mars-1").exit_code == 0
    assert cmem("remote", "add", "origin", f"file://{empty}", "--agent", "mars-1").exit_code == 0
    taken = json.loads(cmem("pull", "--agent", "mars-1", "--json").stdout)
    assert [p["summary"]["new"] for p in taken["peers"]] == [1]
