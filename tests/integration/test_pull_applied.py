"""A pull says what it applied, every part of it: a verdict or a reopening that arrives
while no peer's branch moved is news, and "nothing new" is said only when nothing changed."""

from __future__ import annotations

import json

import pytest

from collective.reports import PullReport, mismatches

from tests.integration.test_exchange import NOT_PUMP, PUMP, ana  # noqa: F401
from tests.integration.test_verdicts import resolved_for_mars

pytestmark = pytest.mark.usefixtures("engine")


def test_a_verdict_and_a_reopening_are_reported_and_nothing_new_only_after(trio, ana, cmem):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    e1.store(PUMP)
    m1.store(NOT_PUMP)
    resolved = resolved_for_mars(trio)  # ana decides on mars-1; no peer's branch moves
    text = cmem("pull", "--agent", "earth-1")
    assert text.exit_code == 0, text.output
    assert "nothing new" not in text.stdout and f"verdicts applied: {resolved['dispute'][:12]}" in text.stdout
    assert "mars-1: no new memories" in text.stdout

    m1.reopen_dispute(resolved["dispute"], note="the inspection was of module B", by="ana")
    report = json.loads(cmem("pull", "--agent", "earth-1", "--json").stdout)
    assert mismatches(report, PullReport) == []
    assert report["applied"]["reopened"] == [resolved["dispute"]] and report["applied"]["cases"] >= 1, report
    assert all(p["status"] == "unchanged" for p in report["peers"])

    quiet = cmem("pull", "--agent", "earth-1", "--json")
    done = json.loads(quiet.stdout)["applied"]
    assert not any(done.values()), done
    text = cmem("pull", "--agent", "earth-1")
    assert "mars-1: nothing new" in text.stdout and "verdicts applied" not in text.stdout
