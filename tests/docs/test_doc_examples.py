"""Docs that run: every shell and Python block of README.md and of the tutorials, word for
word, in a fresh home, page by page and in order, so an example that stops working fails
the suite. Each block runs in a bash process of its own, as a reader who pastes it into a
new terminal: the home and the files of the blocks before it carry over, their shell
variables do not (tests/docs/doc_blocks.py reads them). The events section gets a real
nats-server on a free loopback port, named in place of the address the page names."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from doc_blocks import PYTHON_END, Block, blocks, script

ROOT = Path(__file__).resolve().parents[2]
# the README, every tutorial, and the how-to guides written to run as they are
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "tutorials").glob("*.md")),
         "docs/how-to/roster.md", "docs/how-to/plug-in.md"]
TIMEOUT = 300  # seconds a page may take (a few seconds to a minute each on 2 cores)
NATS_ADDRESS = "nats://127.0.0.1:4222"  # the server the README starts, the test's own in its place

# Every block not run, by page and the start of its first line; each is marked in its page with
# the reason. Servers a reader leaves running, and the suite itself: keep them few.
NOT_RUN = {
    ("README.md", "make demo"),  # the demo and this very suite, from a checkout
    ("README.md", "nats-server -a 127.0.0.1"),  # replaced by a nats-server on a free port (NATS_ADDRESS)
    ("docs/tutorials/dispute.md", "cmem review --agent earth-2"),  # the page serves until stopped (tests/browser)
    ("docs/tutorials/earth-and-mars.md", "cmem sync run --agent mars-1"),  # the daemon runs until stopped
}


def page_blocks(page: str) -> list[Block]:
    return blocks(ROOT / page, ROOT)


def reader_environment(folder: Path) -> dict[str, str]:
    """A reader's new terminal: a fresh HOME, so the default home `~/.cmem` is fresh too
    (CMEM_HOME unset: a block that needs it must say so), `cmem` and `python` of this
    environment first on the PATH, no setting of the developer's own."""
    home, scratch = folder / "reader", folder / "tmp"
    home.mkdir()
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CMEM_", "DOLTLITE_", "_DOLTLITE"))}
    env.update(HOME=str(home), TMPDIR=str(scratch), USER="reader",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    return env


def run_blocks(found: list[Block], env: dict[str, str], replace: dict[str, str] | None = None,
               timeout: float = TIMEOUT) -> tuple[str | None, int, str]:
    """Each block that runs in a bash process of its own, in the reader's home, in order,
    until one fails: (where it is or None, its exit status, the output so far)."""
    output, deadline = [], time.monotonic() + timeout
    for block in found:
        if block.not_run is not None:
            continue
        process = subprocess.Popen(["bash", "-c", script(block, replace=replace)], cwd=env["HOME"], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        try:
            said, _ = process.communicate(timeout=max(deadline - time.monotonic(), 1))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            said, _ = process.communicate()
            return block.where, -1, "".join(output) + said + f"\n(stopped after {timeout} s)"
        output.append(f"--- {block.where}\n{said}")
        if process.returncode != 0:
            return block.where, process.returncode, "".join(output)
    return None, 0, "".join(output)


@pytest.mark.parametrize("page", PAGES)
def test_every_block_of_the_page_runs_word_for_word(page, tmp_path, request):
    env = reader_environment(tmp_path)
    found = page_blocks(page)
    replace = {}
    if any(b.not_run is None and NATS_ADDRESS in b.text for b in found):
        replace[NATS_ADDRESS] = request.getfixturevalue("nats_server").url
    failed, status, output = run_blocks(found, env, replace)
    tail = "\n".join(output.splitlines()[-60:])
    assert failed is None, f"{failed} failed (exit {status}):\n{tail}"


def test_the_blocks_not_run_are_the_listed_ones():
    marked = [(b.page, b.text) for page in PAGES for b in page_blocks(page) if b.not_run is not None]
    assert len(marked) == len(NOT_RUN)
    assert {(page, start) for page, start in NOT_RUN for page_, text in marked
            if page_ == page and text.startswith(start)} == NOT_RUN


def test_every_page_has_blocks_that_run():
    for page in PAGES:
        assert any(b.not_run is None for b in page_blocks(page)), page


def test_the_events_section_of_the_readme_runs():
    """The README's events section is run word for word: a listener receives, verifies,
    decides and pulls, and an outbox is flushed, against a real nats-server."""
    commands = "".join(b.commands() for b in page_blocks("README.md") if b.not_run is None)
    for verb in ("cmem listen", "cmem events flush"):
        assert verb in commands


def test_blocks_are_read_as_a_reader_sees_them(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n```sh\ncmem init --agent a\n```\n\n```toml\nagent = \"a\"\n```\n\n"
                    "<!-- not run: starts a server -->\n```bash\ncmem review\n```\n\n"
                    "- in a list:\n\n  ```python\n  print(1)\n  ```\n\n"
                    "```console\n$ cmem store x \\\n    --tag t\nstored 0123\n$ cmem log\n```\n")
    found = blocks(page, tmp_path)
    assert [(b.line, b.lang, b.not_run) for b in found] == [
        (3, "sh", None), (12, "bash", "starts a server"), (18, "python", None), (22, "console", None)]
    assert found[2].text == "print(1)\n"
    assert found[3].commands() == "cmem store x \\\n    --tag t\ncmem log\n"
    assert script(found[0]) == "set -euo pipefail\ncmem init --agent a\n"
    assert script(found[3], replace={"--tag t": "--tag u"}) == "set -euo pipefail\ncmem store x \\\n    --tag u\ncmem log\n"
    assert script(found[2]) == f"set -euo pipefail\npython - <<'{PYTHON_END}'\nprint(1)\n{PYTHON_END}\n"


def test_a_failing_block_is_named(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```sh\ntrue\n```\n\n```sh\nfalse\necho never\n```\n\n```sh\necho after\n```\n")
    failed, status, output = run_blocks(blocks(page, tmp_path), reader_environment(tmp_path))
    assert (failed, status) == ("page.md:5", 1) and "never" not in output and "after" not in output


def test_each_block_runs_in_a_new_shell_after_the_blocks_before_it(tmp_path):
    """Files carry over from block to block; a variable does not, and a block using one an
    earlier block set fails, as it does for a reader pasting it into a new terminal."""
    page = tmp_path / "page.md"
    page.write_text("```sh\nID=abc\necho \"$ID\" > id.txt\n```\n\n"
                    "```sh\ntest \"$(cat id.txt)\" = abc\n```\n\n"
                    "```sh\ncmem quarantine show \"$ID\"\n```\n")
    failed, status, output = run_blocks(blocks(page, tmp_path), reader_environment(tmp_path))
    assert (failed, status) == ("page.md:10", 1) and "ID: unbound variable" in output, output
