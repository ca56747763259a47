"""The documentation site: it builds with `mkdocs build --strict` (any warning fails it),
every page is in its navigation, the README stays a front door, the JSON reference is what
scripts/json_reference.py writes, and every file of the repository a page names exists."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts_support import load_script

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
README_MOST = 250  # lines: a front door, not the manual
# a repository path in a page: collective/..., scripts/..., tests/..., dream/..., sync/..., schema/...
PATH = re.compile(r"(?<![\w/.<$-])((?:collective|dream|sync|schema|scripts|tests)/[\w./*+-]*)")
BRANCHES = ("collective/quarantine", "collective/roster")  # branch names, not paths


def test_the_site_builds_strict_without_a_warning(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:  # the build is part of the suite: never skipped
        pytest.fail("no mkdocs: `make setup` installs the docs extra (pip install -e '.[test,docs]')")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert "WARNING" not in output and "not included in the \"nav\"" not in output, output[-4000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for member in ("collective.agent.Agent.store", "collective.agent.Agent.recall", "collective.agent.Agent.pull",
                   "collective.agent.Agent.resolve_dispute", "collective.errors.BadInput"):
        assert f'id="{member}"' in api, member


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in DOCS.rglob("*.md"):
        assert f" {page.relative_to(DOCS)}\n" in nav, page


def test_the_readme_is_a_front_door_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MOST
    assert "## The two commands\n" in text
    block = text.split("## The two commands\n", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in block.splitlines()] == [["make", "demo"], ["make", "test"]]


def test_every_link_of_the_readme_leads_to_a_file():
    """The README is read outside the site (mkdocs checks the links of docs/ itself)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert links and [link for link in links if "://" not in link and not (ROOT / link).exists()] == []


def test_every_repository_path_a_page_names_exists():
    missing = []
    for page in PAGES:
        for match in PATH.finditer(page.read_text(encoding="utf-8")):
            path = match.group(1).rstrip(".,:;)")
            if path.startswith(BRANCHES) and not (ROOT / path).exists():
                continue
            found = list(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()
            if not found:
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert missing == []


def test_the_json_reference_is_current():
    reference = load_script("json_reference")
    text = (DOCS / "reference" / "json.md").read_text(encoding="utf-8")
    assert reference.render(text) == text, "docs/reference/json.md is stale: run python scripts/json_reference.py"


def test_the_json_reference_covers_the_commands_and_the_typed_reports():
    reference = load_script("json_reference")
    text = reference.reference()
    assert "### `cmem pull`\n\n```text\nJSON: {\"remote\"" in text
    for name, _ in reference.typed_reports():
        assert f"### `{name}`" in text
    assert {"PullReport", "PushReport", "StatusReport", "DisputeReport"} <= {n for n, _ in reference.typed_reports()}
