"""Fuzzing every `cmem` command's arguments: no traceback, exit 0, 1 or 2, and nothing written
on a non-zero exit (every agent's branch heads, working set and remotes, and the home's files).

The commands are read from the click app, so a command added later is fuzzed without saying
so. Commands that serve until stopped run in a child process instead (SERVES).
CMEM_FUZZ_EXAMPLES sets the examples per command; with CMEM_FUZZ_REPORT=path the counts are
written there as JSON (scripts/reliability.py reads them).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from collective import reviewer_keys
from collective.agent import Agent
from collective.cli import cli
from collective.cli.common import StrictText
from collective.config import Home
from collective.store.doltlite import DoltliteRepository

EXAMPLES = int(os.environ.get("CMEM_FUZZ_EXAMPLES", "12"))
SERVES = {("serve-commons",)}  # run until a signal: fuzzed in a child process
EXIT_CODES = (0, 1, 2, 3)  # success, operational failure, bad input, done here but not shared
DONE = (0, 3)  # what writes: a decision shared on an unreachable remote is recorded here (errors.md)
NOT_FUZZED = {"home"}  # always our test home: a fuzzed --home would write wherever it points
COUNTS: Counter = Counter()


def leaf_commands(group: click.Group, path: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from leaf_commands(command, path + (name,))
        else:
            yield path + (name,), command


COMMANDS = [(p, c) for p, c in leaf_commands(cli) if p not in SERVES]

# Text of every kind: surrogates (how argv bytes that are not UTF-8 arrive), NUL, controls.
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=40)
NASTY = ["", " ", "\x00", "a\x00b", "\udcff", "caf\udce9", "\ud83d", "-1", "0", "1", "2", "0.5", "1e20",
         "100000000000000000000", "-100000000000000000000", "nan", "inf", "-inf", "a" * 5000, "..", "/",
         "../../etc", "%s", "'; DROP TABLE memories; --", "earth-1", "mars-1", "nobody", "origin", "a", "b",
         "both", "merged", "pending", "resolved", "knowledge", "gossip", "deny", "affirm", "HEAD", "main",
         "earth-1/working", "1999-01-01T00:00:00Z", "file:///nonexistent/folder/c.db", "file://relative/c.db",
         "http://127.0.0.1:1/c.db", "ftp://example.org/c.db"]


PLAUSIBLE = ["earth-1", "mars-1", "origin", "dead", "a", "b", "both", "0.5", "1", "3", "deny", "skill", "pending",
             "main", "the north airlock seal was replaced", "the pump is not safe"]


# What the world holds, by parameter name (a parameter not named here gets the memory ids).
HINTS = {"remote_name": ["origin", "dead"], "peers": ["mars-1", "earth-1"], "peer": ["mars-1", "earth-1"],
         "keep": ["a", "b", "both", "merged"], "status": ["pending", "escalated", "resolved"],
         "category": ["knowledge", "skill"], "stance": ["affirm", "deny"], "importance": ["0.5", "1"],
         "phase": ["0", "3.14"], "tags": ["ops", "eva"], "n": ["1", "5"], "k": ["1", "5"], "as_of": ["main"],
         "backend": ["doltlite"], "by": ["ops-lead"], "note": ["checked on site"],
         "host": ["127.0.0.1", "localhost", "::1"], "port": ["0"], "token": ["a-long-enough-token"]}


def values(name: str, ids: list[str]):
    """Two thirds plausible (what the world holds, and words the commands know, so that commands
    get past parsing), one third hostile."""
    hostile = st.one_of(st.sampled_from(NASTY), ANY_TEXT, st.integers(-2**70, 2**70).map(str), st.floats().map(repr))
    return st.one_of(st.sampled_from(HINTS.get(name, ids)), st.sampled_from(PLAUSIBLE), hostile)


@st.composite
def invocation(draw, path: tuple[str, ...], command: click.Command, ids: list[str]) -> list[str]:
    args = list(path)
    for param in command.params:
        if param.name in NOT_FUZZED:
            continue
        if isinstance(param, click.Argument):
            if param.required or draw(st.booleans()):
                args.append(draw(values(param.name, ids)))
        elif param.is_flag:
            if draw(st.booleans()):
                args.append(param.opts[0])
        elif param.name == "agent_id":  # mostly the real agent, so that commands get past opening it
            if draw(st.integers(0, 2)) == 0:
                args += [param.opts[0], draw(st.sampled_from(["earth-1", "mars-1"]) | values("agent", ids))]
        elif draw(st.integers(0, 3)) == 0:
            for _ in range(draw(st.integers(1, 2 if param.multiple else 1))):
                args += [param.opts[0], draw(values(param.name, ids))]
    if draw(st.integers(0, 7)) == 0:  # now and then something the command does not take
        args.insert(draw(st.integers(len(path), len(args))), draw(st.sampled_from(["--bogus", "-z", "extra"])))
    if any("--for" in p.opts for p in command.params if isinstance(p, click.Option)):
        args += ["--for", "0.1"]  # a listener or the review page runs until stopped: the last --for wins
    return args


def written(home: Path) -> dict:
    """Everything a failed command must leave as it was."""
    state: dict = {"files": sorted(str(p.relative_to(home)) for p in home.rglob("*")
                                   if "index" not in p.name and not p.name.endswith("-lock"))}
    for db in sorted(home.glob("*/memory.db")):
        repo = DoltliteRepository(db)
        try:
            state[db.parent.name] = (repo.branches(), repo.query("SELECT * FROM dolt_status"), repo.remotes())
        finally:
            repo.close()
    return state


@pytest.fixture(scope="module")
def world(tmp_path_factory, real_embedder):
    """earth-1 with memories, a commons that mars-1 pushed to and a dead remote; returns (home, ids)."""
    root = tmp_path_factory.mktemp("fuzz")
    home = root / "home"
    home.mkdir()
    commons = f"file://{root / 'commons.db'}"
    with Agent.init("earth-1", home=home, embedder=real_embedder) as earth:  # the first: the default agent
        ids = [earth.store(t).memory.id for t in ("the north airlock seal was replaced", "comms window at 14:00")]
    with Agent.init("mars-1", home=home, embedder=real_embedder) as mars:
        mars.store("the dust storm reaches the ridge on sol 12")
        mars.add_remote("origin", commons)
        mars.push("origin")
    with Agent.open("earth-1", home=home, embedder=real_embedder) as earth:
        earth.add_remote("origin", commons)
        earth.add_remote("dead", "http://127.0.0.1:1/commons.db")  # unreachable: exit 1
    reviewer_keys.init(Home.at(home), "ops-lead")  # so that `review` gets past its reviewer and serves
    return home, ids


def check(result, args: list[str], before: dict, home: Path) -> None:
    COUNTS["invocations"] += 1
    COUNTS[f"exit_{result.exit_code}"] += 1
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    COUNTS["tracebacks"] += crashed or "Traceback" in result.output
    COUNTS["bad_exit_codes"] += result.exit_code not in EXIT_CODES
    unwanted = result.exit_code not in DONE and written(home) != before
    COUNTS["unwanted_writes"] += unwanted
    assert not crashed, (ascii(args), repr(result.exception))
    assert result.exit_code in EXIT_CODES, (ascii(args), result.exit_code, result.output)
    if result.exit_code:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (ascii(args), result.stderr)
    assert not unwanted, (ascii(args), result.exit_code, result.stderr)


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_fuzzed_arguments_never_crash_and_failures_write_nothing(world, path, command, monkeypatch, tmp_path):
    home, ids = world
    monkeypatch.chdir(tmp_path)  # a relative path in an argument lands here, not in the tree
    monkeypatch.setenv("CMEM_NATS_URL", "nats://127.0.0.1:9")  # no NATS: the event commands meet an outage

    @settings(max_examples=EXAMPLES)
    @given(args=invocation(path, command, ids))
    def run(args):
        before = written(home)
        home_args = ["--home", str(home)] if any(p.name == "home" for p in command.params) else []
        result = CliRunner().invoke(cli, [*args, *home_args])
        check(result, args, before, home)

    run()


# No NUL here: an argv cannot carry one (the exec refuses it before the command runs).
def test_every_parameter_of_every_command_checks_its_text():
    for path, command in leaf_commands(cli):
        unchecked = [p.name for p in command.params
                     if not isinstance(p.type, StrictText) and not getattr(p, "is_flag", False)]
        assert unchecked == [], (path, unchecked)


def test_every_flag_left_out_reads_false():
    """A flag not given is False, never None: click reads it so only while the flag keeps its
    boolean type (code such as serve-commons' folder guard counts flags by their value)."""
    flags = [(path, p) for path, command in leaf_commands(cli) for p in command.params if getattr(p, "is_flag", False)]
    assert flags
    for path, param in flags:
        assert param.is_bool_flag, (path, param.name)
    serve = dict(leaf_commands(cli))[("serve-commons",)]
    assert serve.make_context("serve-commons", ["/tmp"]).params["allow_create"] is False


@pytest.mark.parametrize("argv, line", [
    ([b"store", b"bad \xff byte"], b"Error: content: not valid UTF-8 (byte 0xff at position 4)"),
    ([b"store", b"x", b"--tag", b"\xff"], b"Error: tag: not valid UTF-8 (byte 0xff at position 0)"),
    ([b"log", b"-n", b"1e20"], b"Error: n: '1e20' is not a valid integer."),
    ([b"store"], b"Error: Missing argument 'CONTENT'. (see 'cmem store --help')"),
    ([b"recall", b"x", b"--bogus"], b"Error: No such option '--bogus'. (see 'cmem recall --help')"),
], ids=["content", "tag", "log-n", "missing", "unknown-option"])
def test_the_console_script_says_one_line_for_bytes_and_usage_errors(tmp_path, argv, line):
    """Real argv bytes, through the installed script: nothing written, one line, exit 2."""
    cmem = Path(sys.executable).with_name("cmem")
    done = subprocess.run([str(cmem), *argv], capture_output=True, timeout=120,
                          env={**os.environ, "CMEM_HOME": str(tmp_path / "home")})
    assert (done.returncode, done.stdout, done.stderr.strip()) == (2, b"", line)
    assert not (tmp_path / "home").exists()


SERVE_BIND = st.sampled_from(["127.0.0.1", "\udcff", "not an address", ""])


@pytest.mark.parametrize("path", sorted(SERVES), ids=[" ".join(p) for p in sorted(SERVES)])
def test_fuzzed_servers_fail_cleanly_or_serve_until_stopped(path, tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    folders = st.sampled_from([str(folder), str(tmp_path / "missing"), str(tmp_path / "served" / ".."),
                               "\udcff", ""])
    ports = st.sampled_from(["0", "-1", "70000", "x", "1e3", "\udcff"])

    @settings(max_examples=max(3, EXAMPLES // 3))
    @given(folder_arg=folders, bind=SERVE_BIND, port=ports)
    def run(folder_arg, bind, port):
        args = [*path, folder_arg, "--bind", bind, "--port", port, "--json"]
        child = subprocess.Popen([sys.executable, "-m", "collective.cli", *args], cwd=tmp_path,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        try:
            out, err = child.communicate(timeout=4)
        except subprocess.TimeoutExpired:  # it is serving: stop it the documented way
            child.send_signal(signal.SIGTERM)
            out, err = child.communicate(timeout=15)
        COUNTS["invocations"] += 1
        COUNTS["tracebacks"] += b"Traceback" in err
        COUNTS["bad_exit_codes"] += child.returncode not in EXIT_CODES
        assert b"Traceback" not in err and child.returncode in EXIT_CODES, (ascii(args), err[-800:])
        if child.returncode:
            assert len(err.strip().splitlines()) == 1, (ascii(args), err)

    run()


def teardown_module(module):
    report = os.environ.get("CMEM_FUZZ_REPORT")
    if report:
        Path(report).write_text(json.dumps(dict(COUNTS)))
