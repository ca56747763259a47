"""Remotes that cannot serve, names that do not exist, cases and choices that do not exist:
through the CLI, one line on stderr, the documented exit code, and nothing written."""

from __future__ import annotations

import shutil
import socket

import pytest

from collective.agent import Agent

PUMP = "The coolant pump in module B is safe to operate"

# The behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def state(agent: Agent) -> dict:
    """What 'nothing written' compares: every branch head and a clean working set."""
    return {"branches": agent.repo.branches(), "status": agent.repo.query("SELECT * FROM dolt_status")}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lone(home, tmp_path, real_embedder):
    """One agent with a memory and three remotes that cannot serve it."""
    with Agent.init("earth-1", home=home, embedder=real_embedder) as agent:
        agent.store(PUMP)
        agent.add_remote("dead", f"http://127.0.0.1:{closed_port()}/x.db")
        agent.add_remote("junk", f"file://{tmp_path / 'junk.db'}")
        if (tmp_path / "junk.db").is_dir():  # Dolt made an empty remote folder: replace it
            shutil.rmtree(tmp_path / "junk.db")
        (tmp_path / "junk.db").write_bytes(b"this is not a database\n" * 200)  # the commons turned to junk
        agent.add_remote("gone", f"file://{tmp_path / 'nowhere.db'}")
        yield agent


BAD = [
    (["pull", "nope"], 2, "remote"),
    (["push", "nope"], 2, "remote"),
    (["pull", "--from", "mars-1", "gone"], 1, "remote 'gone' is unreachable"),
    (["pull", "dead"], 1, "remote 'dead' is unreachable"),
    (["push", "dead"], 1, "remote 'dead' is unreachable"),
    (["pull", "junk"], 2, "remote"),
    (["push", "junk"], 2, "remote"),
    (["remote", "add", "x", "ftp://example.org/c.db"], 2, "url"),
    (["remote", "add", "x", "file://relative/c.db"], 2, "url"),
    (["remote", "add", "junk", "file:///tmp/c.db"], 2, "name"),
    (["quarantine", "resolve", "0123abcd", "--keep", "a", "--note", "n"], 2, "dispute"),
    (["quarantine", "resolve", "0123abcd", "--keep", "sideways", "--note", "n"], 2, "keep"),
    (["quarantine", "resolve", "0123abcd", "--keep", "merged", "--note", "n"], 2, "text"),
    (["quarantine", "list", "--status", "shut"], 2, "status"),
]


@pytest.mark.parametrize("args, code, field", BAD, ids=[" ".join(a)[:40] for a, _, _ in BAD])
def test_bad_input_through_the_cli_is_one_line_and_writes_nothing(lone, cmem, args, code, field):
    before = state(lone)
    remotes = lone.remotes()
    result = cmem(*args, "--agent", "earth-1")
    assert result.exit_code == code, (result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {field}"), result.stderr
    assert state(lone) == before and lone.remotes() == remotes


def test_a_file_that_is_not_a_database_is_left_alone(lone, cmem, tmp_path):
    junk = (tmp_path / "junk.db").read_bytes()
    assert cmem("pull", "junk", "--agent", "earth-1").exit_code == 2
    assert cmem("push", "junk", "--agent", "earth-1").exit_code == 2
    assert (tmp_path / "junk.db").read_bytes() == junk
