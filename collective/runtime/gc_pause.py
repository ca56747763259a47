"""Pausing Python's cyclic garbage collector around large batches of work."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off.

    A pull or a batch store allocates hundreds of thousands of short-lived,
    acyclic objects (rows, analyses, verdicts); each allocation burst makes the
    collector walk every live object again, which measured at a quarter of a
    10k-memory pull. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
