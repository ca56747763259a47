"""Faults the simulator finds that are known and being fixed elsewhere: violation signature
prefix -> where the fix lies. A history that meets one of these goes on and is not failed
for it; tests/simulation/test_simulation.py fails when a seed stops meeting one it is
listed with, so the entry is removed when its fix lands."""

from __future__ import annotations

KNOWN: dict[str, str] = {
    "no_distinct_fact_hidden:other claim":
        "judge: two objects read as one above the similarity threshold (digit-led identifiers, host names, "
        "one kind named two ways: README, Judgement); below it the merge no longer absorbs (issue 24)",
    "convergence:ids":
        "quarantine/verdicts: a verdict refutes the copies absorbed into the losing memory on the holders "
        "that absorbed them, but not on their origin, so agents disagree on what is live (found by the "
        "simulator, seed 0)",
    "idempotence:quarantine":
        "quarantine: a pass with nothing new still changes the shared cases (their grouping into disputes, "
        "as with convergence:disputes; found by the simulator, seed 9)",
    "quiescence":
        "exchange/pull: a pull of a peer whose branch moved only by its own merges still commits, so "
        "agents that pull each other move each other's heads every round (found by the simulator; "
        "test_found_faults.py)",
    "nothing_lost:absorbed into a retracted memory":
        "exchange/pull: a retraction that arrives leaves the copies the retracted memory absorbed hidden, "
        "though their origins never retracted them (found by the simulator; test_found_faults.py)",
    "convergence:disputes":
        "quarantine: a case taken before a peer grouped it keeps no dispute here, so agents holding the same "
        "cases list different disputes (found by the simulator, seed 5)",
}


def known(signature: str) -> str | None:
    """The known fault a violation signature belongs to, or None."""
    return next((k for k in KNOWN if signature.startswith(k)), None)


def is_known(signature: str) -> bool:
    return known(signature) is not None
