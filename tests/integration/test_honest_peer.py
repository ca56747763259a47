"""One pull cannot wreck an honest peer (docs/concepts/trust.md): however many of its
memories a pull sends to quarantine, the peer's trust moves by a bounded amount, and each
memory it sent stays findable by its own words, marked disputed.

earth-1 and mars-1 each describe the same 36 pieces of equipment, one saying each works,
the other that it does not: the judge opens a case for every pair it takes to clash (36
at least), and no person has decided any of them yet."""

from __future__ import annotations

import pytest

from collective.agent import Agent
from collective.core import trust

THINGS = ["coolant pump", "west airlock", "oxygen scrubber", "water reclaimer", "solar array", "battery bank",
          "greenhouse vent", "rover charger", "comms dish", "heat exchanger", "pressure valve", "dust filter",
          "hab heater", "med bay freezer", "galley oven", "lab centrifuge", "drill motor", "cargo winch",
          "fuel cell", "radiation shield", "suit dryer", "hydroponic pump", "antenna mast", "backup generator",
          "main hatch", "sleep pod fan", "shower recycler", "workshop lathe", "printer nozzle", "seed vault lock",
          "nitrogen tank", "ice drill", "pressure door", "thermal blanket", "wind sensor", "rock crusher"]


@pytest.fixture
def pulled(home, tmp_path, hash_embedder):
    """earth-1 after one pull of mars-1, and what mars-1 sent."""
    earth, mars = (Agent.init(name, home=home, embedder=hash_embedder) for name in ("earth-1", "mars-1"))
    try:
        for agent in (earth, mars):
            agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        for thing in THINGS:
            earth.store(f"The {thing} is working")
        sent = [mars.store(f"The {thing} is not working").memory for thing in THINGS]
        mars.push()
        (report,) = earth.pull(peers=["mars-1"])["peers"]
        yield earth, sent, report
    finally:
        earth.close()
        mars.close()


def test_a_pull_that_opens_many_cases_moves_the_peers_trust_once_and_a_little(pulled):
    earth, sent, report = pulled
    cases = report["summary"]["cases"]
    assert len(cases) >= 30 and all(m.disputed for m in earth.tables.memories.by_id([m.id for m in sent]).values())
    ledger = earth.trust_ledger("mars-1")
    (row,) = ledger["events"]  # one row for the pull, naming every case it opened
    assert row["reason"] == "quarantined" and sorted(row["evidence"]["case_ids"]) == sorted(cases)
    assert row["delta"] == pytest.approx(-trust.BOUND_PER_PULL["quarantined"])
    assert ledger["trust"] >= 0.45


def test_each_memory_the_peer_sent_is_found_by_its_own_words_and_marked_disputed(pulled):
    earth, sent, _ = pulled
    for memory in sent:
        hits = earth.recall(memory.content, k=3)  # as anyone asks: faded memories left out
        (hit,) = [h for h in hits if h.memory.id == memory.id]
        assert hit.memory.disputed and hit.to_dict()["disputed"] and "; disputed" in hit.why()
