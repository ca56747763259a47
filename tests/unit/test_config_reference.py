"""The configuration reference (docs/reference/configuration.md) is what
scripts/config_reference.py writes from the settings classes, and it covers every settings
class and every key."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scripts_support import load_script

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "configuration.md"


@pytest.fixture(scope="module")
def reference():
    return load_script("config_reference")


def test_the_reference_page_is_current(reference):
    text = PAGE.read_text(encoding="utf-8")
    assert reference.render(text) == text, "docs/reference/configuration.md is stale: " \
                                           "run python scripts/config_reference.py"


def test_a_changed_default_makes_the_page_stale(reference, monkeypatch):
    from collective.config.loader import keys
    text = PAGE.read_text(encoding="utf-8")
    _, _, f, _ = next(keys(reference.DreamSettings))
    monkeypatch.setattr(f, "default", f.default + 1)
    assert reference.render(text) != text


def test_every_key_of_every_table_and_every_variable_is_in_the_reference(reference):
    from collective.config import VARIABLES
    text = reference.reference()
    for table, key, _, spec in reference.rows():
        assert f"| `{key}` | {reference.kind_text(spec)} |" in text
    assert all(f"| `{name}` |" in text for name in VARIABLES)


def test_every_settings_class_is_in_the_reference_and_each_table_read_by_one(reference):
    """Every class with a field made by setting(), anywhere in the code, is one the reference lists."""
    from collective.config.loader import keys
    declared = set()
    for path in (p for package in ("collective", "dream", "sync") for p in (ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(item, ast.AnnAssign) and isinstance(item.value, ast.Call)
                    and getattr(item.value.func, "id", None) == "setting" for item in node.body):
                declared.add(node.name)
    assert declared == {cls.__name__ for cls in reference.SECTIONS}
    owners: dict[str | None, type] = {}
    for cls in reference.SECTIONS:
        for table, key, _, spec in keys(cls):
            assert spec.doc and "\n" not in spec.doc and "|" not in spec.doc, (table, key)
            assert owners.setdefault(table, cls) is cls, f"[{table}] is read by two classes"
