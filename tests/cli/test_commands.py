"""The command tree as a whole: every command registered, --json on each, a fast --help."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from collective.cli import cli

TREE = {
    "init": None, "store": None, "recall": None, "list": None, "show": None, "forget": None, "update": None, "log": None, "index": None,
    "status": None, "remote": {"add", "list", "remove", "set-url"}, "push": None, "pull": None, "serve-commons": None, "credential": None,
    "agents": {"accept-key", "reject-key"}, "trust": None, "quarantine": {"list", "show", "resolve", "reopen"},
    "promote": None, "endorse": None, "promotions": {"list", "approve", "reject"},
    "reviewer": {"init"}, "reviewers": {"add", "list", "remove"}, "key": {"rotate"},
    "collective": {"init", "add-agent", "add-reviewer", "remove", "show"}, "judge": None, "mcp": None,
    "events": {"tail", "flush"}, "listen": None, "sync": {"plan", "once", "run", "relay"},
    "dream": {"accept"},  # a group that also runs on its own: `cmem dream [--full] ...`
    "review": None, "challenge": None,
}
SPEAKS_A_PROTOCOL = {"mcp"}  # its standard output is MCP's JSON-RPC, not a result to print


def listed(args: list[str]) -> list[str]:
    """The command names a --help page lists under Commands."""
    text = CliRunner().invoke(cli, [*args, "--help"], terminal_width=200).stdout
    return [line.split()[0] for line in text.split("Commands:\n", 1)[1].splitlines() if line.strip()]


def test_every_topic_registers_its_commands():
    assert set(listed([])) == set(TREE)
    for name, subcommands in TREE.items():
        assert isinstance(cli.commands[name], click.Group) == (subcommands is not None)
        if subcommands is not None:
            assert set(listed([name])) == subcommands


def test_every_command_listed_in_help_takes_json():
    leaves = []
    for name in listed([]):
        command = cli.commands[name]
        if isinstance(command, click.Group):
            leaves += [(f"{name} {sub}", command.commands[sub]) for sub in listed([name])]
        else:
            leaves.append((name, command))
    lacking = [path for path, command in leaves if path not in SPEAKS_A_PROTOCOL
               and not any(isinstance(p, click.Option) and "--json" in p.opts for p in command.params)]
    assert lacking == []
    assert len(leaves) == sum(len(subs) if subs else 1 for subs in TREE.values())
    assert any("--json" in p.opts for p in cli.commands["dream"].params if isinstance(p, click.Option))


def test_help_imports_neither_the_agent_nor_the_numeric_stack():
    code = ("import sys\nfrom click.testing import CliRunner\nfrom collective.cli import cli\n"
            "assert CliRunner().invoke(cli, ['--help']).exit_code == 0\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'onnxruntime', 'tqdm')"
            " or m == 'collective.agent'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_judge_prints_the_verdict_and_names_bad_input():
    result = CliRunner().invoke(cli, ["judge", "EVA 3 starts at 14:00 on Sunday",
                                      "EVA 3 starts at 2 pm on Wednesday", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"relation", "confidence", "reason", "matched", "clashed", "phase_difference", "similarity"}
    assert out["relation"] in {"constructive", "destructive", "partial", "independent"}
    bad = CliRunner().invoke(cli, ["judge", "  ", "x", "--json"])
    assert bad.exit_code == 2 and bad.stdout == "" and bad.stderr == "Error: a: must be non-empty text\n"


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_serve_commons_prints_its_url_and_stops_on_sigint(tmp_path, as_json):
    server = subprocess.Popen([sys.executable, "-m", "collective.cli", "serve-commons", str(tmp_path),
                               *(["--json"] if as_json else [])],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        url = json.loads(line)["url"] if as_json else line.strip()
        assert url.startswith("http://127.0.0.1:")
    finally:
        server.send_signal(signal.SIGINT)
        rest, err = server.communicate(timeout=30)
    assert server.returncode == 0 and rest == "" and err == "stopped\n"
