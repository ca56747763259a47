"""`init` refuses, before it makes anything, what could not become an agent: a home that
cannot hold folders, an id that names no branch Dolt allows, and (with --exist-ok) an
engine or database other than the existing agent's."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from collective import provision
from collective.agent import Agent
from collective.cli import cli
from collective.config import Home
from collective.errors import BadInput


def refused(result, field: str) -> None:
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"Error: {field}: "), result.stderr


def test_a_home_that_cannot_hold_folders_is_refused_and_nothing_is_made(tmp_path):
    in_the_way = tmp_path / "afile"
    in_the_way.write_text("hi\n")
    for home in (in_the_way / "sub", in_the_way, "/proc/cmem-nonexistent"):
        refused(CliRunner().invoke(cli, ["init", "--agent", "a", "--home", str(home)]), "home")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"] and in_the_way.read_text() == "hi\n"


def test_an_id_no_branch_may_carry_is_bad_input(home, cmem):
    for agent_id in ("a..b", "a.lock", "x.y.lock", "a...b"):
        refused(cmem("init", "--agent", agent_id), "agent")
    assert list(home.iterdir()) == []
    kept = ["a.", "a.b-c_d", "a.lockb", "x.lock.y"]  # what Dolt takes stays allowed
    for agent_id in kept:
        assert cmem("init", "--agent", agent_id).exit_code == 0
    assert Home.at(home).agents() == kept


def test_exist_ok_refuses_another_engine_or_database(home, hash_embedder):
    Agent.init("g", home=home, embedder=hash_embedder).close()
    the_home = Home.at(home)
    assert provision.exists("g", the_home, backend="doltlite") and not provision.exists("h", the_home, backend="dolt")
    with pytest.raises(BadInput, match="^backend: g exists as a doltlite agent"):
        provision.exists("g", the_home, backend="dolt")
    with pytest.raises(BadInput, match="^backend: g exists as a doltlite agent"):
        provision.exists("g", the_home, backend="dolt", dolt_url="mysql://root@127.0.0.1:1/other")
    with pytest.raises(BadInput, match="^dolt-url: only with --backend dolt"):
        provision.exists("g", the_home, dolt_url="mysql://root@127.0.0.1:1/other")


@pytest.mark.parametrize("engine", ["dolt"], indirect=True)
def test_exist_ok_refuses_another_dolt_database(home, hash_embedder, engine):
    with Agent.init("g", home=home, embedder=hash_embedder) as agent:
        own = agent.location.url
    the_home = Home.at(home)
    assert provision.exists("g", the_home, backend="dolt", dolt_url=own)
    with pytest.raises(BadInput, match="^dolt-url: g exists in another database"):
        provision.exists("g", the_home, backend="dolt", dolt_url=own.rsplit("/", 1)[0] + "/other")
    with pytest.raises(BadInput, match="^backend: g exists as a dolt agent"):
        provision.exists("g", the_home, backend="doltlite")


def test_init_exist_ok_with_another_engine_is_refused_and_without_it_says_already(home, cmem):
    assert cmem("init", "--agent", "g").exit_code == 0
    refused(cmem("init", "--agent", "g", "--exist-ok", "--backend", "dolt"), "backend")
    assert cmem("init", "--agent", "g", "--exist-ok", "--backend", "doltlite").exit_code == 0
    refused(cmem("init", "--agent", "g", "--backend", "dolt"), "agent")  # without --exist-ok: already initialised
    with Agent.open("g", home=home) as agent:
        assert agent.status()["engine"] == "doltlite"
