"""The documentation's runnable blocks, read from the markdown as a reader sees them.

Every ```sh, ```bash, ```console and ```python block of a page, in page order. A block
directly after the comment `<!-- not run: REASON -->` is not run (it starts a server, or
runs the test suite itself); the tests list every such block. For a ```console block
the commands are the lines after `$ ` (a line ending in a backslash goes on on the next);
the rest is output. `script()` makes one block a bash script of its own: a reader may paste
each block into a new terminal, so what the blocks before it left on disk is there, and a
variable they set is not (`set -u` makes using one a failure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RUN = {"sh", "bash", "console", "python"}
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.+?)\s*-->\s*$")
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


def script(block: Block, *, replace: dict[str, str] | None = None) -> str:
    """The bash script of one block that runs, stopping at its first failing command or at
    a variable it did not set. `replace` maps a text of the page to the one it stands for
    here (the NATS server the test started, named where the page names its own)."""
    text = block.text if block.lang == "python" else block.commands()
    for word, instead in (replace or {}).items():
        text = text.replace(word, instead)
    if block.lang == "python":
        text = f"python - <<'{PYTHON_END}'\n{text}{PYTHON_END}\n"
    return "set -euo pipefail\n" + text
