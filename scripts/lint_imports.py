"""The import contracts (.importlinter) checked on the package as it installs.

lint-imports finds a package's modules by walking its folder, and collective/
here does not hold dream/, sync/ and schema/: setup.py installs them as
collective.dream, collective.sync and collective.schema. So lint-imports runs
in a temporary folder whose collective/ links to both, as site-packages has it.
Arguments go to lint-imports (`--verbose`, `--contract ID`, ...).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSIDE = ("dream", "sync", "schema")  # setup.py's FOLDERS, installed inside collective


def main(args: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="cmem-lint-") as tmp:
        view = Path(tmp) / "collective"
        view.mkdir()
        for entry in [*(ROOT / "collective").iterdir(), *(ROOT / name for name in INSIDE)]:
            (view / entry.name).symlink_to(entry)
        # from the view, `collective` is found there first; no cache, which would be left behind in it
        lint = Path(sys.executable).with_name("lint-imports")
        return subprocess.run([lint, "--no-cache", *args, ROOT / ".importlinter"], cwd=tmp,
                              check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
