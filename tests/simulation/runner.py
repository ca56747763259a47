"""Running histories of the machine: one seed, through Hypothesis (generation and shrinking),
with what it did added to a Tally. Shared by the pytest seeds and scripts/simulate.py."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as with_seed
from hypothesis.reporting import with_reporter
from hypothesis.stateful import run_state_machine_as_test

from .machine import CollectiveMachine, Tally

# The first history Hypothesis tries is the simplest (time passing, nothing else); the
# second onwards are drawn from the seed.
EXAMPLES = 2


def run_seed(seed: int, *, agents: tuple[int, int], steps: int, embedder: Callable, tally: Tally,
             is_known: Callable[[str], bool], workdir: Path | None = None, examples: int = EXAMPLES,
             shrink: bool = True, inject_faults: bool = True, texts: str = "mixed") -> dict | None:
    """Run the histories of one seed. None when every invariant held (or only known faults
    were met); else {"seed", "error", "steps"}: the failure and its shrunk history. `texts`:
    where stores take their texts (texts.SOURCES)."""
    machine = with_seed(seed)(CollectiveMachine.configure(agents=agents, embedder=embedder, is_known=is_known,
                                                          tally=tally, workdir=workdir,
                                                          inject_faults=inject_faults, texts=texts))
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if shrink else [])
    chosen = settings(max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
                      derandomize=False, print_blob=False, phases=phases, suppress_health_check=list(HealthCheck))
    printed: list[str] = []
    with with_reporter(printed.append):
        try:
            run_state_machine_as_test(machine, settings=chosen)
        except Exception as error:  # noqa: BLE001 (a failing history is the answer, shrunk)
            inner = getattr(error, "exceptions", None)  # a flaky failure carries the first one inside
            shown = inner[0] if inner else error
            # the shrunk history: Hypothesis adds it to the exception's notes (or reports it)
            notes = [*getattr(error, "__notes__", []), *getattr(shown, "__notes__", [])] or list(map(str, printed))
            return {"seed": seed, "error": f"{type(error).__name__}: {type(shown).__name__}: "
                                           f"{(str(shown).splitlines() or [''])[0][:1500]}",
                    "steps": [line.strip() for text in notes for line in str(text).splitlines()
                              if "state." in line and "cheap_invariants" not in line]}
    return None
