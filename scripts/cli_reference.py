"""Write the README's CLI reference from each command's --help.

`python scripts/cli_reference.py` rewrites the block between the markers;
`--check` exits 1 when the README is out of date (tests/test_docs.py runs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from collective.cli import cli

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN, END = "<!-- cli-reference:begin -->", "<!-- cli-reference:end -->"


def commands(group: click.Group, prefix: str = "cmem") -> list[tuple[str, click.Command]]:
    out = []
    for name in sorted(group.commands):
        command = group.commands[name]
        out.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            out.extend(commands(command, f"{prefix} {name}"))
    return out


def reference() -> str:
    parts = []
    for path, command in commands(cli):
        if isinstance(command, click.Group):
            continue
        ctx = click.Context(command, info_name=path, terminal_width=88, max_content_width=88)
        parts.append(f"### `{path}`\n\n```\n{command.get_help(ctx)}\n```\n")
    return "\n".join(parts)


def render(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{reference()}{END}{tail}"


def main() -> int:
    text = README.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in sys.argv:
        if new != text:
            print("README.md CLI reference is out of date: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
