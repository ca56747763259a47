"""Faults the simulator finds that are known and being fixed elsewhere: violation signature
prefix -> where the fix lies. A history that meets one of these goes on and is not failed
for it; tests/simulation/test_simulation.py fails when a seed stops meeting one it is
listed with, so the entry is removed when its fix lands."""

from __future__ import annotations

KNOWN: dict[str, str] = {}


def known(signature: str) -> str | None:
    """The known fault a violation signature belongs to, or None."""
    return next((k for k in KNOWN if signature.startswith(k)), None)


def is_known(signature: str) -> bool:
    return known(signature) is not None
