"""A merged verdict withdrawn (reopened, then decided otherwise) withdraws the memory it
made, on every agent: refuted from the reopening on, left out of recall, and still
recalled as of a commit before."""

from __future__ import annotations

import pytest

from tests.integration.test_exchange import ASK_PUMP, ana, sync_round  # noqa: F401
from tests.integration.test_verdicts import disputed_trio, side_of

pytestmark = pytest.mark.usefixtures("engine")

MADE = "The coolant pump in module B is safe once its impeller is replaced"


def test_reopen_then_keep_withdraws_the_merged_memory_everywhere(trio, ana):
    pump, _, not_pump = disputed_trio(trio)
    m1, e2 = trio["mars-1"], trio["earth-2"]
    (dispute,) = m1.disputes("open")
    merged = m1.resolve_dispute(dispute["dispute"], keep="merged", text=MADE, note="inspected", by="ana")
    made = merged["resolution"]["memory"]
    sync_round(trio)
    before = {name: agent.repo.head(agent.branch) for name, agent in trio.items()}
    assert all(made in {h.memory.id for h in agent.recall(ASK_PUMP, k=5)} for agent in trio.values())

    reopened = e2.reopen_dispute(dispute["dispute"], note="the inspection was of module C", by="ana")
    kept = e2.resolve_dispute(dispute["dispute"], keep=side_of(dispute, pump.id), note="module B is fine",
                              by="ana")
    sync_round(trio)
    sync_round(trio)
    for name, agent in trio.items():
        row = agent.get(made)
        assert row.refuted_by == dispute["dispute"] and row.valid_until == reopened["reopened"]["at"], name
        assert made not in {h.memory.id for h in agent.recall(ASK_PUMP, k=5)}, name
        assert made in {h.memory.id for h in agent.recall(ASK_PUMP, k=5, as_of=before[name])}, name
        assert agent.get(not_pump.id).refuted_by == dispute["dispute"], name  # the verdict standing: keep earth's
        assert agent.get(pump.id).refuted_by is None, name
    assert kept["resolution"]["keep"] == side_of(dispute, pump.id)
