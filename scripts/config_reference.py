"""Write the configuration reference (docs/reference/configuration.md) from the settings model.

Every key of cmem.toml (its table, kind, default and meaning, as the settings classes
declare them with collective.config.setting) and every environment variable
(collective/config/environment.py). `python scripts/config_reference.py` rewrites the
block between the markers; `--check` exits 1 when the page is out of date
(tests/unit/test_config_reference.py checks the same).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator

from collective.config import VARIABLES, Settings, TopLevel
from collective.config.loader import Key, keys
from collective.dream.settings import DreamSettings
from collective.sync.events.connection import NatsOptions
from collective.sync.policy import PolicySettings
from collective.sync.schedule import SyncSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside this script, also when a test loads it
from cli_reference import replace_between, write_or_check  # noqa: E402

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "configuration.md"
BEGIN, END = "<!-- config-reference:begin -->", "<!-- config-reference:end -->"
# every settings class, in the order the page shows their tables
SECTIONS = (TopLevel, Settings, DreamSettings, PolicySettings, SyncSettings, NatsOptions)
_KINDS = {float: "number", int: "whole number", bool: "true or false", str: "text", dict: "table of numbers"}
_LISTS = {float: "list of numbers", int: "list of whole numbers", str: "list of text"}


def rows() -> Iterator[tuple[str | None, str, Any, Key]]:
    """(table, key, default, Key) of every setting, each class's in field order."""
    for cls in SECTIONS:
        for table, key, f, spec in keys(cls):
            yield table, key, f.default_factory() if spec.kind is dict else f.default, spec


def kind_text(spec: Key) -> str:
    kind = _LISTS[spec.kind[0]] if isinstance(spec.kind, tuple) else _KINDS[spec.kind]
    if spec.at_least is not None and spec.at_most is not None:
        kind += f", {_toml(spec.at_least)} to {_toml(spec.at_most)}"
    elif spec.at_least is not None:
        kind += f", at least {_toml(spec.at_least)}"
    if spec.above is not None:
        kind += f", more than {_toml(spec.above)}"
    return kind + (f" ({spec.unit})" if spec.unit else "")


def _toml(value: Any) -> str:
    """`value` as cmem.toml would write it ("unset" for no default)."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return str(value)


def reference() -> str:
    lines: list[str] = []
    last: object = ()
    for table, key, default, spec in rows():
        if table != last:
            title = "the top of the file" if table is None else f"`[{table}]`"
            lines += ["" if lines else None, f"{title}:", "", "| key | kind | default | meaning |",
                      "|---|---|---|---|"]
            last = table
        lines.append(f"| `{key}` | {kind_text(spec)} | `{_toml(default)}` | {spec.doc} |")
    lines += ["", "Environment variables (each over the cmem.toml key it names; a command-line option "
              "goes over both):", "", "| variable | sets | cmem.toml key |", "|---|---|---|"]
    lines += [f"| `{v.name}` | {v.sets} | {f'`{v.key}`' if v.key else ''} |" for v in VARIABLES.values()]
    return "\n".join(line for line in lines if line is not None) + "\n"


def render(text: str) -> str:
    """`text` with the block between the markers replaced by the reference."""
    return replace_between(text, BEGIN, END, reference())


def main() -> int:
    return write_or_check(PAGE, render, "config_reference.py")


if __name__ == "__main__":
    sys.exit(main())
