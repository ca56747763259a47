"""How long work reports how far it got, without knowing who is watching.

A service takes `progress: Progress | None` and calls it as it goes; the CLI
turns the calls into a bar on a terminal, and nothing else has to care.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int) -> None:
        """`done` of `total` units of `stage` are finished (total 0: unknown)."""

