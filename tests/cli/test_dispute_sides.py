"""A dry run and the quarantine name a dispute's sides so a reviewer cannot mix them up:
the dry run reads a as this agent's memory, the dispute orders its sides by memory id,
and each view names the agent beside a and b."""

from __future__ import annotations

import json

from click.testing import CliRunner

from collective.cli import cli


def cmem(home, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--home", str(home)])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def test_the_dry_run_and_the_dispute_name_the_agent_beside_each_side(home, tmp_path):
    texts = {"earth-1": "The coolant pump in module C is safe to operate",
             "mars-1": "The coolant pump in module C is not safe to operate"}
    ids = {}
    for name, text in texts.items():
        cmem(home, "init", "--agent", name)
        ids[name] = json.loads(cmem(home, "store", text, "--agent", name, "--json"))["id"]
        cmem(home, "remote", "add", "origin", f"file://{tmp_path / 'commons.db'}", "--agent", name)
        cmem(home, "push", "--agent", name)

    dry = cmem(home, "pull", "--dry-run", "--agent", "mars-1")
    line = next(x for x in dry.splitlines() if "destructive" in x)
    assert f"a (here) {ids['mars-1']} ~ b (earth-1) {ids['earth-1']}" in line
    assert "a says the coolant pump in module C is not safe" in line

    cmem(home, "pull", "--agent", "mars-1")
    (dispute,) = json.loads(cmem(home, "quarantine", "list", "--agent", "mars-1", "--json"))
    shown = cmem(home, "quarantine", "show", dispute["dispute"], "--agent", "mars-1")
    sides = {x.split(":")[0].strip(): x for x in shown.splitlines() if x.startswith(("  a:", "  b:"))}
    first = min(ids.values())  # a dispute's a is the memory with the smaller id
    owner = next(name for name, i in ids.items() if i == first)
    assert sides["a"].startswith(f"  a: [{owner}") and texts[owner] in sides["a"]
