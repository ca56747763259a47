"""Merging never hides a distinct fact: the same statement about two different objects
survives a pull on both sides, while a true paraphrase is still absorbed.

Two agents store pairs through the real embedder and the default judge; one pulls the
other's memories; then each memory is recalled by its own text. An absorbed memory leaves
recall, so a distinct fact absorbed by its look-alike would be missing.
"""

from __future__ import annotations

import pytest

from collective.agent import Agent

# (earth-1 stores, mars-1 stores): one statement, two objects; never one fact
DISTINCT = [
    ("Pump P-101 is offline for maintenance.", "Pump P-102 is offline for maintenance."),
    ("Valve R2-1 is not open.", "Valve R1-1 is not open."),
    ("Deck 1 is flooded.", "Deck 2 is flooded."),
    ("The patient in bed 4 has a fever.", "The patient in bed 7 has a fever."),
    ("Store 118 is out of bottled water.", "Store 181 is out of bottled water."),
    ("Gate B12 is closed for maintenance.", "Gate B14 is closed for maintenance."),
    ("The north stairwell light is out.", "The south stairwell light is out."),
    ("Line 3 is stopped for a changeover.", "Line 4 is stopped for a changeover."),
    ("Truck 12 left the depot at 6 am.", "Truck 21 left the depot at 6 am."),
    ("db-02 disk usage is 91%.", "db-03 disk usage is 91%."),
    ("The left engine was inspected.", "The right engine was inspected."),
    ("Freezer 3 is at -20 C.", "Freezer 5 is at -20 C."),
    ("Anna's locker is jammed.", "Omar's locker is jammed."),
    ("Room 204 needs cleaning.", "Room 206 needs cleaning."),
    ("The staging database is being restored from backup.", "The production database is being restored from backup."),
]
# the same fact in other words: absorbed, so recall shows it once
PARAPHRASES = [
    ("The coolant pump in module B is safe to operate.", "Module B's coolant pump is safe to operate."),
    ("Host db-01 is down.", "The db-01 server is down."),
    ("The EVA starts at 14:00.", "The EVA starts at 2 pm."),
]


@pytest.fixture
def pair(tmp_path, real_embedder):
    """earth-1 and mars-1 on doltlite, sharing a file commons."""
    agents = [Agent.init(name, home=tmp_path / "home", embedder=real_embedder) for name in ("earth-1", "mars-1")]
    try:
        for agent in agents:
            agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        yield agents
    finally:
        for agent in agents:
            agent.close()


def _found(agent: Agent, text: str) -> bool:
    return any(hit.memory.content == text for hit in agent.recall(text, k=5))


def test_merging_never_hides_a_distinct_fact(pair):
    earth, mars = pair
    for a, b in DISTINCT + PARAPHRASES:
        earth.store(a)
        mars.store(b)
    mars.push()
    summary = earth.pull()["peers"][0]["summary"]

    hidden = [text for pair_ in DISTINCT for text in pair_ if not _found(earth, text)]
    assert hidden == [], f"distinct facts no longer recalled after the merge: {hidden}"
    absorbed = [b for _, b in PARAPHRASES if not _found(earth, b)]
    assert summary["constructive"] >= len(PARAPHRASES) and len(absorbed) == len(PARAPHRASES), (summary, absorbed)
