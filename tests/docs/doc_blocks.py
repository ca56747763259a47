"""The documentation's runnable blocks, read from the markdown as a reader sees them.

Every ```sh, ```bash, ```console and ```python block of a page, in page order. A block
directly after the comment `<!-- not run: REASON -->` is not run (it starts a server, or
runs the test suite itself); the tests list every such block. For a ```console block
the commands are the lines after `$ ` (a line ending in a backslash goes on on the next);
the rest is output. `script()` makes one bash script of a page, so its blocks run in order
in one shell, as in one terminal: a variable a block sets is there for the next.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

RUN = {"sh", "bash", "console", "python"}
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.+?)\s*-->\s*$")
MARK = "::docs-block::"  # printed before each block: the last one printed names the block that failed
PYTHON_END = "DOCS_PYTHON_BLOCK_END"


@dataclass(frozen=True)
class Block:
    page: str            # the page's path from the repository root
    line: int            # the line of its opening fence, from 1
    lang: str
    text: str
    not_run: str | None  # the reason given, or None when it runs

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def commands(self) -> str:
        """What a reader types: the text itself, or a console block's commands."""
        if self.lang != "console":
            return self.text
        commands, going_on = [], False
        for line in self.text.splitlines():
            if going_on or line.startswith("$ "):
                commands.append(line if going_on else line[2:])
                going_on = line.endswith("\\")
        return "\n".join(commands) + "\n"


def blocks(path: Path, root: Path) -> list[Block]:
    """The fenced blocks of the page at `path` whose language runs, in page order."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        lang = (opening["info"].split() or [""])[0].lower()
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].strip() == fence and lines[j].startswith(" " * indent + fence[0])), len(lines))
        if lang in RUN:
            body = "".join(line[indent:] + "\n" for line in lines[i + 1:end])
            before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            marked = NOT_RUN.match(before)
            found.append(Block(str(path.relative_to(root)), i + 1, lang, body, marked["reason"] if marked else None))
        i = end + 1
    return found


def script(page: list[Block], *, instead: dict[str, str] | None = None) -> str:
    """One bash script running the page's blocks in order, stopping at the first that fails.

    A block not run leaves its place empty, or, where `instead` maps a word of it to a line,
    that line (the NATS server the test started, named where the page names its own)."""
    parts = ["set -euo pipefail"]
    for block in page:
        parts.append(f"echo {shlex.quote(f'{MARK} {block.where}')}")
        if block.not_run is not None:
            parts += [line for word, line in (instead or {}).items() if word in block.text]
        elif block.lang == "python":
            parts.append(f"python - <<'{PYTHON_END}'\n{block.text}{PYTHON_END}")
        else:
            parts.append(block.commands())
    return "\n".join(parts) + "\n"


def failed_block(output: str) -> str:
    """The block a run of `script()` stopped in: the last one it announced."""
    marks = [line[len(MARK):].strip() for line in output.splitlines() if line.startswith(MARK)]
    return marks[-1] if marks else "(before the first block)"
