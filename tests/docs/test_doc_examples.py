"""Docs that run: every shell and Python block of README.md and of the tutorials, word for
word, in a fresh home, page by page and in order, so an example that stops working fails
the suite. A page's blocks run in one bash shell, as a reader types them into one terminal
(tests/docs/doc_blocks.py reads them). The events section gets a real nats-server on a
free loopback port, named through CMEM_NATS_URL where the page starts its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from doc_blocks import Block, blocks, failed_block, script

ROOT = Path(__file__).resolve().parents[2]
# the README, every tutorial, and the how-to guides written to run as they are
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "tutorials").glob("*.md")),
         "docs/how-to/roster.md", "docs/how-to/plug-in.md"]
TIMEOUT = 300  # seconds a page may take (a few seconds to a minute each on 2 cores)

# Every block not run, by page and the start of its first line; each is marked in its page with
# the reason. Servers a reader leaves running, and the suite itself: keep them few.
NOT_RUN = {
    ("README.md", "make demo"),  # the demo and this very suite, from a checkout
    ("README.md", "nats-server -a 127.0.0.1"),  # replaced by a nats-server on a free port (CMEM_NATS_URL)
    ("docs/tutorials/dispute.md", "cmem review --agent earth-2"),  # the page serves until stopped (tests/browser)
    ("docs/tutorials/earth-and-mars.md", "cmem sync run --agent mars-1"),  # the daemon runs until stopped
}


def page_blocks(page: str) -> list[Block]:
    return blocks(ROOT / page, ROOT)


def reader_environment(folder: Path) -> dict[str, str]:
    """A reader's shell: a fresh home (HOME and CMEM_HOME), `cmem` and `python` of this
    environment first on the PATH, no setting of the developer's own."""
    home, scratch = folder / "reader", folder / "tmp"
    home.mkdir()
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CMEM_", "DOLTLITE_", "_DOLTLITE"))}
    env.update(HOME=str(home), CMEM_HOME=str(home / ".cmem"), TMPDIR=str(scratch), USER="reader",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    return env


def run_page(page: str, env: dict[str, str], instead: dict[str, str]) -> tuple[int, str]:
    """The page's script in bash, in the reader's home; its exit status and output."""
    process = subprocess.Popen(["bash", "-c", script(page_blocks(page), instead=instead)], cwd=env["HOME"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return -1, output + f"\n(stopped after {TIMEOUT} s)"
    return process.returncode, output


@pytest.mark.parametrize("page", PAGES)
def test_every_block_of_the_page_runs_word_for_word(page, tmp_path, request):
    env = reader_environment(tmp_path)
    instead = {}
    if any(b.not_run is not None and "CMEM_NATS_URL=" in b.text for b in page_blocks(page)):
        server = request.getfixturevalue("nats_server")
        instead["CMEM_NATS_URL="] = f"export CMEM_NATS_URL={server.url}"
    status, output = run_page(page, env, instead)
    tail = "\n".join(output.splitlines()[-60:])
    assert status == 0, f"{failed_block(output)} failed (exit {status}):\n{tail}"


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
    written = script(found, instead={"review": "echo instead"})
    assert "cmem init --agent a" in written and "cmem review" not in written and "echo instead" in written
    assert "python - <<'DOCS_PYTHON_BLOCK_END'\nprint(1)\nDOCS_PYTHON_BLOCK_END" in written


def test_a_failing_block_is_named(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```sh\ntrue\n```\n\n```sh\nfalse\necho never\n```\n")
    done = subprocess.run(["bash", "-c", script(blocks(page, tmp_path))], capture_output=True, text=True)
    assert done.returncode == 1 and "never" not in done.stdout
    assert failed_block(done.stdout) == "page.md:5"
