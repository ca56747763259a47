"""The CLI reference (docs/reference/cli.md) is what scripts/cli_reference.py writes, and every
command has help."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from scripts_support import load_script

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "cli.md"


@pytest.fixture(scope="module")
def reference():
    return load_script("cli_reference")


def test_the_reference_page_is_current(reference):
    text = PAGE.read_text(encoding="utf-8")
    assert reference.render(text) == text, "docs/reference/cli.md is stale: run python scripts/cli_reference.py"


def test_the_reference_covers_every_command_and_subcommand(reference):
    text = reference.reference()
    paths = [" ".join(path) for path, _ in reference.commands()]
    assert {"cmem", "cmem store", "cmem remote", "cmem remote add", "cmem quarantine resolve"} <= set(paths)
    for path in paths:
        assert f"## `{path}`\n\n```text\nUsage: {path} " in text


def test_a_changed_help_makes_the_page_stale(reference, monkeypatch):
    text = PAGE.read_text(encoding="utf-8")
    store = reference.cli.commands["store"]
    monkeypatch.setattr(store, "help", store.help + "\n\nOne more paragraph.")
    assert reference.render(text) != text


def test_every_command_subcommand_and_option_has_help(reference):
    assert reference.missing_help() == []


def test_missing_help_is_found(reference):
    @click.group()
    def root():
        """A group with help."""

    @root.group()
    def silent():
        pass

    @silent.command()
    @click.option("--flag", is_flag=True)
    def leaf(flag):
        """A command with help and an option without."""

    assert reference.missing_help(root) == ["cmem silent", "cmem silent leaf --flag"]
