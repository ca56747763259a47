"""Errors inside `cmem mcp` name tools and arguments, never a command or its --options:
every tool driven with ids that name nothing, arguments out of range and no commons, and
every error line the services can raise, put in the tools' words."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from collective.mcp.wording import in_tool_words
from tests.integration.test_mcp import OPERATOR, TOOLS, person_cli, run, served

CLI_WORDS = re.compile(r"\bcmem\b(?!\.toml)|(?<![\w-])--[a-z]")  # a command, an option (cmem.toml is a file)
NOWHERE = "no-such-id"
PERSON = {"memory_resolve", "memory_reopen", "memory_decide_promotion", "memory_decide_key"}

BAD = [  # every tool, with what it cannot do
    ("memory_store", {"content": " "}), ("memory_store", {"content": "x", "phase": 1.0, "stance": "deny"}),
    ("memory_update", {"memory_id": NOWHERE, "content": "Valve 9 is open"}),
    ("memory_forget", {"memory_id": NOWHERE}),
    ("memory_recall", {"query": "valve", "as_of": NOWHERE}), ("memory_recall", {"query": ""}),
    ("memory_recall", {"query": "valve", "as_of": "HEAD", "consensus": True}),
    ("memory_recall", {"query": "valve", "since": "2030-01-01", "until": "2020-01-01"}),
    ("memory_list", {"since": "yesterday"}), ("memory_list", {"limit": 0}),
    ("memory_show", {"memory_id": NOWHERE}), ("memory_status", {"verbose": True}),
    ("memory_push", {}), ("memory_pull", {}), ("memory_push", {"remote": "nowhere"}),
    ("memory_disputes", {"status": "shut"}), ("memory_disputes", {"offset": -1}),
    ("memory_challenge", {"memory_id": NOWHERE, "why": "Valve 9 is shut"}), ("memory_challenge", {"memory_id": NOWHERE, "why": " "}),
    ("memory_store", {"content": "Valve 9 is shut", "supersedes": NOWHERE}),
    ("memory_dispute", {"dispute_id": NOWHERE}),
    ("memory_promote", {"memory_id": NOWHERE}), ("memory_endorse", {"memory_id": NOWHERE}),
    ("memory_log", {"limit": 0}), ("memory_peers", {"offset": -1}), ("memory_trust", {"agent_id": NOWHERE}),
    ("memory_stability", {"x": 1}), ("memory_judge", {"a": "", "b": "x"}),
    ("memory_sync", {"remote": "nowhere"}), ("memory_dream", {"full": "maybe"}), ("memory_rotate_key", {"x": 1}),
    ("memory_resolve", {"dispute_id": NOWHERE, "keep": "a", "note": "checked"}),
    ("memory_resolve", {"dispute_id": NOWHERE, "keep": "merged", "note": "checked"}),
    ("memory_reopen", {"dispute_id": NOWHERE, "note": "wrong"}),
    ("memory_decide_promotion", {"memory_id": NOWHERE, "approve": True, "note": "ok"}),
    ("memory_decide_key", {"agent_id": NOWHERE, "accept": True}),
    ("memory_nothing", {}),
]


def test_every_tool_errs_in_tool_words(home, cmem):
    """No remote configured: push, pull and sync fail too."""
    assert cmem("init", "--agent", "earth-1").exit_code == 0
    person_cli(home)
    errors = {}

    async def scenario():
        async with served(home, "earth-1", operator=True, reviewer="ada") as session:
            offered = {t.name for t in (await session.list_tools()).tools}
            assert offered == TOOLS | OPERATOR | PERSON
            assert {tool for tool, _ in BAD} >= offered
            for tool, arguments in BAD:
                result = await session.call_tool(tool, arguments)
                assert result.is_error, (tool, arguments, result.content)
                errors[tool, str(arguments)] = result.content[0].text

    run(scenario)
    assert [(call, line) for call, line in errors.items() if CLI_WORDS.search(line)] == []
    assert errors["memory_dispute", str({"dispute_id": NOWHERE})] == f"dispute: no dispute '{NOWHERE}' (see memory_disputes)"
    assert errors["memory_endorse", str({"memory_id": NOWHERE})].endswith("(propose it with memory_promote)")
    assert errors["memory_push", "{}"] == "remote: no remote configured; ask its operator"


def _raised_lines(root: Path):
    """The text of every error raised in the services, an f-string's fields as 'X'."""
    for path in root.rglob("*.py"):
        if {"cli", "review"} & set(path.relative_to(root).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                for argument in node.exc.args:
                    text = _text(argument)
                    if text:
                        yield f"{path.relative_to(root)}:{node.lineno}", text


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(part) if isinstance(part, ast.Constant) else "X" for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return ""


def test_every_error_line_the_services_raise_reads_in_tool_words():
    """Whatever a tool's call may meet, said as a tool's caller can act on it; the CLI
    prints the same lines as they are."""
    root = Path(__file__).parents[2] / "collective"
    lines = list(_raised_lines(root))
    assert any("cmem quarantine list" in line for _, line in lines)  # the scan finds what it looks for
    said = [(where, in_tool_words(line)) for where, line in lines]
    assert [(where, line) for where, line in said if CLI_WORDS.search(line)] == []
