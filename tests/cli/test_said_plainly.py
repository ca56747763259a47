"""Messages that say their likely cause and their fix: an empty argument or option points at
an unset shell variable (`cmem quarantine show "$DISPUTE"` in a new shell), and `status`
says what a stale index means and what brings it up to date."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from collective.agent import Agent
from collective.cli import cli

HINT = "(empty: was the variable set in this shell?)"


def invoke(home, *args):
    return CliRunner().invoke(cli, [*args, "--home", str(home)])


@pytest.fixture
def earth(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        agent.store("The pump is safe", importance=1.0)
    return home


@pytest.mark.parametrize("args, line", [
    (["quarantine", "show", ""], "dispute: no dispute ''"),
    (["quarantine", "resolve", "", "--keep", "a", "--note", "n", "--by", "ana"], "dispute: no dispute ''"),
    (["show", ""], "memory: no memory with id ''"),
    (["forget", ""], "memory: no memory with id ''"),
    (["trust", ""], "agent: '' is not a valid agent id (expected [a-z0-9][a-z0-9._-]{0,63})"),
    (["recall", "pump", "--as-of", ""], "as-of: must not be empty"),
], ids=["dispute-show", "dispute-resolve", "show", "forget", "trust", "as-of"])
def test_an_empty_id_names_the_likely_cause(earth, args, line):
    result = invoke(earth, *args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {line} {HINT}\n"), result.output


def test_an_unknown_id_that_is_not_empty_gets_no_hint(earth):
    result = invoke(earth, "quarantine", "show", "0123abcd")
    assert result.exit_code == 2 and "no dispute '0123abcd'" in result.stderr and "empty" not in result.stderr


def test_status_says_what_a_stale_index_means_and_what_fixes_it(earth, hash_embedder):
    def index_line() -> str:
        result = invoke(earth, "status")
        assert result.exit_code == 0, result.output
        return next(line for line in result.stdout.splitlines() if line.startswith("index"))

    with Agent.open("earth-1", home=earth, embedder=hash_embedder) as agent:
        rover = agent.store("Rover 5 battery was replaced on Tuesday").memory.id
        agent.recall("rover")  # a recall brings the index up and saves it (a store only glances)
    assert index_line() == "index     2 vectors, current"
    assert invoke(earth, "forget", rover).exit_code == 0  # a new head, not indexed
    assert index_line() == ("index     2 vectors, stale: behind the head, without its latest changes; "
                            "the next recall brings it up to date (or `cmem index` now)")
    assert "index" in cli.commands  # the command it names
    with Agent.open("earth-1", home=earth, embedder=hash_embedder) as agent:
        agent.recall("pump")
    assert index_line().endswith(" vectors, current")


def test_status_says_what_builds_an_index_not_built_yet(home, hash_embedder):
    Agent.init("earth-1", home=home, embedder=hash_embedder).close()
    result = invoke(home, "status")
    assert "index     not built yet: the first recall builds it (or `cmem index` now)" in result.stdout.splitlines()
