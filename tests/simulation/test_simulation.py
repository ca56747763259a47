"""Random histories of 3 to 5 agents keep the invariants of the collective
(docs/concepts/invariants.md): a fixed set of seeds, each a short history of real
doltlite agents on one file commons, with the hashing embedder for speed
(scripts/simulate.py runs long ones with the real embedder). A third of the stored texts
are real (texts.real_texts: our dev chats, and the public corpora where they are cached).

Every third seed also injects faults (kill -9, a command beside another, the commons away
or restored from a copy), which cost child processes.

A fault listed in known.py does not fail a history; but each seed names the known faults
it meets, and the test fails when it no longer meets one: the fix landed, so remove the
entry (here and in known.py). A seed may meet more than it names (a history's timing
varies with the machine's load).

A history that found a fault the fixed seeds do not meet (FOUND_REAL) runs as the
simulator ran it, with the real embedder, and must keep every invariant."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from simulation.known import is_known, known
from simulation.machine import Tally
from simulation.runner import run_seed

SEEDS = range(30)
STEPS = 40
# seed -> the known faults (known.py keys) its histories meet today
MEETS: dict[int, set[str]] = {}


@pytest.fixture
def workdir(tmp_path):
    """The histories' databases: in memory (/dev/shm) where there is one, a third of the time
    they take on disk; else in tmp_path. Removed after the test either way."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="cmem-simulation-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_history_keeps_the_invariants(seed, workdir, hash_embedder):
    tally = Tally()
    failure = run_seed(seed, agents=(3, 5), steps=STEPS, embedder=lambda: hash_embedder, tally=tally,
                       is_known=is_known, workdir=workdir, inject_faults=seed % 3 == 0)
    assert failure is None, f"seed {seed}: {failure['error']}\n" + "\n".join(failure["steps"])
    met = {known(s) for s in tally.signatures} - {None}
    fixed = MEETS.get(seed, set()) - met
    assert not fixed, (f"seed {seed} no longer meets {sorted(fixed)}: remove it from MEETS "
                       "(and from known.py when no seed meets it)")


# Histories that found a fault the fixed seeds above do not meet: seed -> (agents, steps, texts, what it
# found). Each runs as the simulator ran it (real embedder, faults injected, its text source), and fails on
# the code before its fix.
FOUND_REAL = {
    6725: (3, 200, "templates",
           "a verdict's winner spared by it stayed standing when the verdict was reopened, where "
           "holders that met the verdicts in another order refuted it (refutations_settled; convergence)"),
}


@pytest.mark.parametrize("seed", sorted(FOUND_REAL))
def test_a_history_that_found_a_fault_keeps_the_invariants(seed, workdir, real_embedder):
    agents, steps, texts, found = FOUND_REAL[seed]
    failure = run_seed(seed, agents=(agents, agents), steps=steps, embedder=lambda: real_embedder, tally=Tally(),
                       is_known=is_known, workdir=workdir, shrink=False, texts=texts)
    assert failure is None, f"seed {seed} ({found}): {failure['error']}"
