"""Faults the simulator finds that are known and being fixed elsewhere: violation signature
prefix -> where the fix lies. A history that meets one of these goes on and is not failed
for it; tests/simulation/test_simulation.py fails when a seed stops meeting one it is
listed with, so the entry is removed when its fix lands."""

from __future__ import annotations

KNOWN: dict[str, str] = {
    "no_crash:pull:KeyError: 'dispute'":
        "shared rows: a pull that raises a known case and opens a new one (store/sql.py upsert, issue 24)",
    "no_distinct_fact_hidden:other claim":
        "merge comparators: the judge's word absorbs a distinct fact below the similarity threshold (issue 24)",
    "no_distinct_fact_hidden:below threshold":
        "merge comparators: [merge] similarity_threshold is never read (issue 24)",
    "quiescence":
        "exchange/pull: a pull of a peer whose branch moved only by its own merges still commits, so "
        "agents that pull each other move each other's heads every round (found by the simulator)",
    "nothing_lost:absorbed into a retracted memory":
        "merge and forget: a memory absorbed into one whose origin later retracts it leaves recall with it, "
        "though its own origin never retracted it (found by the simulator)",
}


def known(signature: str) -> str | None:
    """The known fault a violation signature belongs to, or None."""
    return next((k for k in KNOWN if signature.startswith(k)), None)


def is_known(signature: str) -> bool:
    return known(signature) is not None
