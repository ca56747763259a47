"""Write the JSON reference (docs/reference/json.md) from the code.

Two parts: the shape each command's `--json` prints, as its --help documents it
(scripts/cli_reference.py reads the help the same way), and the typed reports the front
door's verbs return (the TypedDicts of collective/reports/, written by its own
`shape_text`). `python scripts/json_reference.py` rewrites the block between the markers;
`--check` exits 1 when the page is out of date (tests/docs/test_doc_site.py checks the same).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import textwrap
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside this script, also when a test loads it
from cli_reference import WIDTH, commands, help_text, replace_between, write_or_check  # noqa: E402

from typing_extensions import is_typeddict  # noqa: E402

from collective import reports  # noqa: E402

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "json.md"
BEGIN, END = "<!-- json-reference:begin -->", "<!-- json-reference:end -->"


def json_paragraph(help_: str) -> str | None:
    """The help's paragraph that starts with "JSON", on one line; None when it has none."""
    lines = help_.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("JSON")), None)
    if start is None:
        return None
    taken = []
    for line in lines[start:]:
        if not line.strip() or line.startswith("Options:"):
            break
        taken.append(line.strip())
    return " ".join(taken)


def command_shapes() -> Iterator[tuple[str, str]]:
    """("cmem pull", 'JSON: {...}') for every command whose help documents its JSON."""
    for path, _ in commands():
        paragraph = json_paragraph(help_text(path))
        if paragraph:
            yield " ".join(path), paragraph


def typed_reports() -> Iterator[tuple[str, type]]:
    """The TypedDicts the modules of collective/reports/ declare, each module's in the order
    it declares them."""
    for found in pkgutil.iter_modules(reports.__path__):
        module = importlib.import_module(f"{reports.__name__}.{found.name}")
        for name, value in vars(module).items():
            if is_typeddict(value) and value.__module__ == module.__name__:
                yield name, value


def _block(text: str) -> str:
    wrapped = textwrap.wrap(text, width=WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    return "```text\n" + "\n".join(wrapped) + "\n```\n"


def reference() -> str:
    parts = ["## What each command prints\n"]
    for command, paragraph in command_shapes():
        parts.append(f"### `{command}`\n\n{_block(paragraph)}")
    parts.append("## The typed reports\n\nWhat `Agent.pull()`, `Agent.push()`, `Agent.status()` and the dispute\n"
                 "verbs return, the `--json` of the matching commands and the results of the matching MCP\n"
                 "tools, written from `collective/reports/`.\n")
    for name, shape in typed_reports():
        doc = " ".join((shape.__doc__ or "").split())
        parts.append(f"### `{name}`\n\n" + (f"{doc}\n\n" if doc else "") + _block(reports.shape_text(shape)))
    return "\n".join(parts)


def render(text: str) -> str:
    """`text` with the block between the markers replaced by the reference."""
    return replace_between(text, BEGIN, END, reference())


def main() -> int:
    return write_or_check(PAGE, render, "json_reference.py")


if __name__ == "__main__":
    sys.exit(main())
