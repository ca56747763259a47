"""Write the CLI reference (docs/reference/cli.md) from each command's --help.

`python scripts/cli_reference.py` rewrites the block between the markers;
`--check` exits 1 when the page is out of date or a command or option lacks
a help text (tests/cli/test_docs.py checks the same).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Iterator, Sequence

import click

from collective.cli import cli

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "cli.md"
BEGIN, END = "<!-- cli-reference:begin -->", "<!-- cli-reference:end -->"
WIDTH = 88  # wrap the same on every machine, whatever its terminal


def commands(command: click.Command = cli, path: tuple[str, ...] = ("cmem",)
             ) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command and group, each group before its subcommands, in name order."""
    yield path, command
    if isinstance(command, click.Group):
        for name in sorted(command.commands):
            yield from commands(command.commands[name], (*path, name))


def help_text(path: tuple[str, ...]) -> str:
    """What `cmem ... --help` prints, through the same contexts (and so the same settings)."""
    ctx = cli.make_context(path[0], [], resilient_parsing=True, terminal_width=WIDTH, max_content_width=WIDTH)
    command: click.Command = cli
    for name in path[1:]:
        command = command.commands[name]
        ctx = command.make_context(name, [], parent=ctx, resilient_parsing=True)
    return command.get_help(ctx)


def reference() -> str:
    return "\n".join(f"## `{' '.join(path)}`\n\n```text\n{help_text(path)}\n```\n" for path, _ in commands())


def render(text: str) -> str:
    """`text` with the block between the markers replaced by the reference."""
    return replace_between(text, BEGIN, END, reference())


def replace_between(text: str, begin: str, end: str, body: str) -> str:
    """`text` with what lies between the marker lines `begin` and `end` replaced by `body`
    (scripts/config_reference.py writes its block the same way)."""
    head, found_begin, rest = text.partition(begin)
    _, found_end, tail = rest.partition(end)
    if not found_begin or not found_end:
        raise ValueError(f"the page lacks the markers {begin} ... {end}")
    return f"{head}{begin}\n{body}{end}{tail}"


def missing_help(root: click.Command = cli) -> list[str]:
    """Commands, groups and options without a help text, as `cmem remote add --url`."""
    missing = []
    for path, command in commands(root):
        if not (command.help or command.short_help or "").strip():
            missing.append(" ".join(path))
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip():
                missing.append(f"{' '.join(path)} {param.opts[0]}")
    return missing


def write_or_check(page: Path, rendered: Callable[[str], str], script: str, problems: Sequence[str] = ()) -> int:
    """Rewrite `page` with `rendered(text)`; with --check, write nothing and exit 1 when it is
    stale or there are `problems` (scripts/config_reference.py and json_reference.py too)."""
    text = page.read_text(encoding="utf-8")
    new = rendered(text)
    if "--check" not in sys.argv:
        page.write_text(new, encoding="utf-8")
        return 0
    found = list(problems)
    if new != text:
        found.append(f"{page.relative_to(page.parents[2])} is out of date: run python scripts/{script}")
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


def main() -> int:
    return write_or_check(PAGE, render, "cli_reference.py", [f"no help text: {name}" for name in missing_help()])


if __name__ == "__main__":
    sys.exit(main())
