"""What every scripts/bench_*.py shares: the --quick flag, the work folder (--dir), and an
embedder for memories stored with explicit vectors.

A quick run takes the same code paths at tiny sizes, in seconds, so that the test
suite can run every benchmark (tests/integration/test_benchmarks.py) and none of them
rots unnoticed. Its figures say nothing about speed.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator, Sequence


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
               quick: dict[str, Any]) -> argparse.Namespace:
    """Adds --quick, whose sizes (`quick`, by destination) replace the defaults; sizes
    given on the command line still win."""
    shown = ", ".join(f"{name.replace('_', '-')} {value}" for name, value in quick.items())
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, seconds: checks that the benchmark runs" + (f" ({shown})" if shown else ""))
    args = parser.parse_args(argv)
    if args.quick:
        parser.set_defaults(**quick)
        args = parser.parse_args(argv)
    return args


@contextlib.contextmanager
def work_folder(kept: str | None, name: str) -> Iterator[Path]:
    """Where a run's agents and commons live: `kept`/`name`, left there to look at (emptied
    first: a run needs fresh databases), else a temporary folder, removed."""
    if kept is None:
        with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as folder:
            yield Path(folder)
        return
    root = Path(kept) / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    yield root


class VectorsOnly:
    """An embedder for memories stored with explicit vectors; it never embeds. Each
    benchmark names its own `model_version`, so its vectors match no other's."""

    def __init__(self, dim: int, model_version: str):
        self.dim, self.model_version = dim, model_version

    def embed(self, texts):  # pragma: no cover - every benchmark memory brings its vector
        raise RuntimeError("the benchmark stores explicit vectors")
