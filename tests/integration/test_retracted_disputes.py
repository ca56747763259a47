"""A dispute whose side its origin retracted closes itself, alike on every agent: it
leaves the queue (nothing is left to decide) and stays in the history."""

from __future__ import annotations

import pytest

from collective.errors import BadInput
from collective.reports import DisputeReport, mismatches

from tests.integration.test_exchange import NOT_PUMP, PUMP, ana, sync_round  # noqa: F401

pytestmark = pytest.mark.usefixtures("engine")


def test_a_dispute_about_a_retracted_memory_is_closed_everywhere(trio, ana):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    pump, not_pump = e1.store(PUMP).memory, m1.store(NOT_PUMP).memory
    for agent in trio.values():
        agent.push()
    sync_round(trio)
    sync_round(trio)
    (dispute,) = m1.disputes("open")
    e1.forget(pump.id)
    e1.push()
    sync_round(trio)
    for name, agent in trio.items():
        assert agent.disputes("open") == [], name
        (seen,) = agent.disputes()  # in the history still
        assert seen["dispute"] == dispute["dispute"] and seen["status"] == "closed", name
        assert seen["closed"] == {"reason": "retracted", "memories": [pump.id]}, name
        assert mismatches(seen, DisputeReport) == [], name
        assert [d["dispute"] for d in agent.disputes("closed")] == [dispute["dispute"]], name
        assert agent.status()["counts"]["open_cases"] == 0, name
    with pytest.raises(BadInput, match="closed"):
        m1.resolve_dispute(dispute["dispute"], keep="a", note="late", by="ana")
