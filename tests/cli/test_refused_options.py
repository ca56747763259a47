"""Option values refused up front as bad input: one line naming the option, exit 2, nothing
done. An empty option, a --plot FILE that cannot be written, a time whose UTC leaves years
1 to 9999, a number that is not finite, a NATS URL the client would refuse, a reviewer
without a key."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from collective import reviewer_keys
from collective.agent import Agent
from collective.cli import cli
from collective.config import Home
from tests.cli.test_fuzz import written


def invoke(home, *args, env: dict | None = None):
    return CliRunner().invoke(cli, [*args, "--home", str(home)], env=env)


def refused(result, line: str) -> None:
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {line}\n"), result.output


@pytest.fixture
def earth(home, hash_embedder, tmp_path):
    """earth-1 (the default agent) holding one memory, with a commons remote; mars-1 beside it."""
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        agent.store("The pump is safe", importance=1.0)
        agent.store("The pump works well", importance=1.0)
    Agent.init("mars-1", home=home, embedder=hash_embedder).close()
    return home


# --- an option typed empty ---------------------------------------------------------------

EMPTY = "must not be empty (empty: was the variable set in this shell?)"


def every_option(group: click.Group, path: tuple[str, ...] = ()):
    """(path, option) for each option that takes a value, of groups too (`dream --plot`)."""
    for name, command in sorted(group.commands.items()):
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag:
                yield path + (name,), param
        if isinstance(command, click.Group):
            yield from every_option(command, path + (name,))


OPTIONS = list(every_option(cli))


@pytest.mark.parametrize("path, option", OPTIONS, ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in OPTIONS])
def test_every_option_typed_empty_is_refused(path, option, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # where `--home ""` went: ~/.cmem
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, [*path, option.opts[0], ""])
    refused(result, f"{option.opts[0].lstrip('-')}: {EMPTY}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, name", [
    (["store", "meant for some agent", "--agent", ""], "agent"),
    (["store", "empty category", "-c", ""], "category"),
    (["list", "--category", ""], "category"),
    (["init", "--agent", "x", "--backend", ""], "backend"),
    (["events", "flush", "--collective", "", "--nats", "nats://127.0.0.1:9"], "collective"),
    (["mcp", "--reviewer", ""], "reviewer"),
], ids=["agent", "store-category", "list-category", "backend", "collective", "reviewer"])
def test_an_empty_option_is_not_taken_as_left_out(earth, args, name):
    before = written(earth)
    refused(invoke(earth, *args), f"{name}: {EMPTY}")
    assert written(earth) == before


def test_an_empty_home_is_refused_not_read_as_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    refused(CliRunner().invoke(cli, ["init", "--agent", "x", "--home", ""]), f"home: {EMPTY}")
    assert not (tmp_path / ".cmem").exists()


def test_an_empty_environment_variable_still_means_unset(earth):
    stored = invoke(earth, "store", "from the default agent", "--json", env={"CMEM_AGENT": ""})
    assert stored.exit_code == 0, stored.output
    assert '"origin_agent":"earth-1"' in stored.stdout.replace(" ", "")


# --- --plot FILE that cannot be written ----------------------------------------------------

@pytest.mark.parametrize("command", [("dream",), ("status",), ("trust", "mars-1"), ("agents",)],
                         ids=["dream", "status", "trust", "agents"])
def test_a_plot_in_a_missing_folder_or_onto_a_folder_is_refused_before_the_work(earth, tmp_path, command):
    before = written(earth)
    missing = tmp_path / "missing" / "p.svg"
    refused(invoke(earth, *command, "--plot", str(missing)),
            f"plot: '{missing}': its folder '{missing.parent}' does not exist")
    folder = tmp_path / "folder.svg"
    folder.mkdir()
    refused(invoke(earth, *command, "--plot", str(folder)), f"plot: '{folder}' is a folder, not a file")
    (tmp_path / "file").write_text("")
    under_a_file = tmp_path / "file" / "p.svg"
    refused(invoke(earth, *command, "--plot", str(under_a_file)),
            f"plot: '{under_a_file}': '{tmp_path / 'file'}' is not a folder")
    assert written(earth) == before  # the dream did not run (it commits)


# --- times outside years 1 to 9999 in UTC, and before year 1000 ---------------------------------

@pytest.mark.parametrize("args, line", [
    (["list", "--until", "0001-01-01T00:00:00+05:00"], "until: '0001-01-01T00:00:00+05:00'"),
    (["list", "--since", "9999-12-31T23:59:59-05:00"], "since: '9999-12-31T23:59:59-05:00'"),
    (["recall", "pump", "--until", "0001-01-01T00:00:00+05:00"], "until: '0001-01-01T00:00:00+05:00'"),
    (["recall", "pump", "--since", "9999-12-31T23:59:59-05:00"], "since: '9999-12-31T23:59:59-05:00'"),
    (["sync", "once", "--window", "9999-12-31T23:00-05:00/9999-12-31T23:30-05:00"], "window: '9999-12-31T23:00-05:00'"),
    (["sync", "plan", "--window", "0001-01-01T00:00+05:00/0001-01-01T01:00+05:00"], "window: '0001-01-01T00:00+05:00'"),
], ids=["list-until", "list-since", "recall-until", "recall-since", "once-window", "plan-window"])
def test_a_time_whose_utc_leaves_years_1_to_9999_is_refused(earth, args, line):
    before = written(earth)
    refused(invoke(earth, *args), f"{line} is outside years 1 to 9999 in UTC")
    assert written(earth) == before


def test_a_time_before_year_1000_is_read_as_typed(earth):
    everything = invoke(earth, "list", "--since", "0999-12-31", "--json")
    assert everything.exit_code == 0 and everything.stdout.count('"id"') == 2, everything.output
    nothing = invoke(earth, "list", "--until", "0001-01-01", "--json")
    assert nothing.exit_code == 0 and '"id"' not in nothing.stdout, nothing.output


# --- numbers that are not finite ------------------------------------------------------------

@pytest.mark.parametrize("args, name", [
    (["listen", "--for", "nan"], "for"),
    (["listen", "--status-every", "nan", "--for", "1"], "status-every"),
    (["events", "tail", "--for", "nan"], "for"),
    (["review", "--for", "nan", "--port", "0"], "for"),
    (["sync", "relay", "a=file:///x.db", "b=file:///y.db", "--state", "s", "--poll", "inf"], "poll"),
    (["store", "x", "--importance", "inf"], "importance"),
], ids=["listen-for", "status-every", "tail-for", "review-for", "relay-poll", "importance"])
def test_a_number_that_is_not_finite_is_refused(earth, args, name):
    before = written(earth)
    value = args[args.index(f"--{name}") + 1]
    refused(invoke(earth, *args, "--nats", "nats://127.0.0.1:9") if args[0] in ("listen", "events")
            else invoke(earth, *args), f"{name}: must be a finite number, got '{value}'")
    assert written(earth) == before


# --- NATS URLs the client would refuse ----------------------------------------------------------

@pytest.mark.parametrize("url, problem", [
    ("nats://host:abc", "the port must be a number from 1 to 65535"),
    ("nats://host:99999", "the port must be a number from 1 to 65535"),
    ("nats://host:0", "the port must be a number from 1 to 65535"),
    ("nats://", "names no host (nats://host:port)"),
    ("not a url", "is not a NATS URL (nats://host:port)"),
])
def test_a_nats_url_is_checked_up_front(earth, url, problem):
    before = written(earth)
    shown = f"'{url}': {problem}" if problem.startswith("the port") else f"'{url}' {problem}"
    refused(invoke(earth, "events", "flush", "--nats", url), f"nats: {shown}")
    refused(invoke(earth, "events", "flush", env={"CMEM_NATS_URL": url}), f"nats: {shown}")  # as from cmem.toml
    assert written(earth) == before


# --- cmem mcp --reviewer -------------------------------------------------------------------------

def test_mcp_refuses_a_reviewer_without_a_key_naming_the_option(earth):
    reviewer_keys.init(Home.at(earth), "ana")
    result = invoke(earth, "mcp", "--reviewer", "nobody")
    assert result.exit_code == 2 and result.stderr.startswith("Error: reviewer: no reviewer key for nobody"), \
        result.output
    assert result.stderr.count("\n") == 1


def test_mcp_with_an_empty_reviewer_does_not_serve(earth):
    """Before, it served without the reviewer's tools, saying nothing (a child process: it
    reads its standard input)."""
    done = subprocess.run([sys.executable, "-m", "collective.cli", "mcp", "--reviewer", "", "--home", str(earth)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"Error: reviewer: {EMPTY}\n")


# --- folders and ids said plainly -----------------------------------------------------------------

def test_credential_export_to_a_missing_folder_says_it_is_missing(earth, tmp_path):
    missing = tmp_path / "srv" / "keys"
    refused(invoke(earth, "credential", "--export", str(missing)),
            f"export: '{missing}' does not exist: make the folder first")
    (tmp_path / "file").write_text("")
    refused(invoke(earth, "credential", "--export", str(tmp_path / "file")),
            f"export: '{tmp_path / 'file'}' is not a folder")
    assert not missing.parent.exists()


@pytest.mark.parametrize("peer", ["a\nb", " \t\n"])
def test_trust_in_a_malformed_agent_id_quotes_it_and_says_what_is_wrong(earth, peer):
    refused(invoke(earth, "trust", peer),
            f"agent: {peer!r} is not a valid agent id (expected [a-z0-9][a-z0-9._-]{{0,63}})")


def test_click_own_errors_cut_a_long_value_too(earth):
    refused(invoke(earth, "promotions", "list", "--status", "x" * 3000),
            f"status: '{'x' * 80}…' (3000 characters) is not one of 'pending', 'promoted', 'rejected', 'all'.")
