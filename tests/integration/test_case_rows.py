"""One write of the quarantine may hold a case read back (every column, its dispute
among them) beside one a pull just opened (no dispute yet), in either order."""

from __future__ import annotations


def case(cid: str, **extra) -> dict:
    return {"id": cid, "memory_id_a": f"{cid}-a", "memory_id_b": f"{cid}-b", "agent_a": "earth-1",
            "agent_b": "mars-1", "similarity": 0.9, "phase_diff": 3.1, "dispute_count": 1, "status": "pending",
            "resolution": None, "created_at": "2026-01-01T00:00:00Z", "resolved_at": None, **extra}


def test_a_read_back_case_and_a_new_one_are_written_together(agent):
    with agent.repo.transaction():
        agent.tables.cases.write([case("c1")])
    known = {**agent.tables.cases.by_id()["c1"], "dispute": "c1", "dispute_count": 2}
    with agent.repo.transaction():
        agent.tables.cases.write([known, case("c2")])
        agent.tables.cases.write([case("c3"), {**known, "dispute_count": 3}])
    held = agent.tables.cases.by_id()
    assert (held["c1"]["dispute"], held["c1"]["dispute_count"]) == ("c1", 3)
    assert held["c2"]["dispute"] is None and held["c3"]["dispute"] is None
