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
    "no_crash:recall:RuntimeError":
        "index: the ANN search fails when k outgrows ef (issue 24)",
    "no_crash:bad_input:store importance":
        "agent arguments: an importance too large for a float raises OverflowError, not BadInput (issue 24)",
    "no_crash:bad_input:recall as_of a number":
        "agent arguments: recall(as_of=5) raises AttributeError, not BadInput (issue 24)",
    "no_crash:bad_input:add_remote a number":
        "agent arguments: add_remote(5, url) raises TypeError, not BadInput (issue 24)",
    "nothing_lost:un-retracted":
        "exchange/pull, merge/plan: a peer branch moved back to before a retraction un-retracts the memory "
        "(issue 24)",
    "monotonic_history":
        "exchange/pull, merge/plan: a peer branch moved back takes a lower sync_version (issue 24)",
    "convergence:disputes":
        "quarantine: a case taken before a peer grouped it keeps no dispute here, so agents holding the same "
        "cases list different disputes (found by the simulator, seed 5)",
}


def known(signature: str) -> str | None:
    """The known fault a violation signature belongs to, or None."""
    return next((k for k in KNOWN if signature.startswith(k)), None)


def is_known(signature: str) -> bool:
    return known(signature) is not None
