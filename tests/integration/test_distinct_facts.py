"""Merging never hides a distinct fact: the same statement about two different objects
survives a pull on both sides, while a true paraphrase is still absorbed.

Two agents store pairs through the real embedder and the default judge; one pulls the
other's memories; then each memory is recalled by its own text. An absorbed memory leaves
recall, so a distinct fact absorbed by its look-alike, or by an unrelated memory the judge
called an agreement, would be missing.
"""

from __future__ import annotations

import pytest

from collective.agent import Agent
from collective.core import wave
from tests.integration.dream_helpers import detect_all

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

# Written apart from the pairs above, in other domains and wordings. Across pairs, unrelated
# memories that the judge calls an agreement meet at cosine 0.30 to 0.51 ("The feed valve on
# tank 8 is not open." / "Valve V-7 on the cooling loop is shut.", 0.50; "The circulation fan
# in node 3 is safe to run." / "Rover 2's left front wheel motor is healthy.", 0.31): below the
# merge's similarity threshold, so never absorbed.
OBJECT_PAIRS = [
    ("Valve V-7 on the cooling loop is shut.", "Valve V-9 on the cooling loop is shut."),
    ("The heat exchanger in bay 2 is safe to service.", "The heat exchanger in bay 3 is safe to service."),
    ("Compressor C-201 tripped on high discharge pressure.", "Compressor C-202 tripped on high discharge pressure."),
    ("The oxygen scrubber in habitat A is running normally.", "The oxygen scrubber in habitat B is running normally."),
    ("Battery string 1 is charged to 80%.", "Battery string 2 is charged to 80%."),
    ("Mrs Patel in ward 5 is allowed visitors after 4 pm.", "Mr Chen in ward 5 is allowed visitors after 4 pm."),
    ("Insulin for room 12 was given at 08:00.", "Insulin for room 14 was given at 08:00."),
    ("Flight BA117 boards at gate 22.", "Flight BA171 boards at gate 22."),
    ("Pallet 3401 is ready for pickup at dock 2.", "Pallet 3410 is ready for pickup at dock 2."),
    ("web-eu-4 passed its health check.", "web-us-4 passed its health check."),
    ("Job nightly-etl finished without errors.", "Job hourly-etl finished without errors."),
    ("The east greenhouse is watered every morning.", "The west greenhouse is watered every morning."),
    ("Sample S-44 is stored in the -80 freezer.", "Sample S-45 is stored in the -80 freezer."),
    ("Ms Okafor teaches the Tuesday chemistry class.", "Mr Lindqvist teaches the Tuesday chemistry class."),
    ("Rover 2's left front wheel motor is healthy.", "Rover 3's left front wheel motor is healthy."),
    ("The port solar array is fully deployed.", "The starboard solar array is fully deployed."),
    ("Hatch 4 between the airlock and the lab is sealed.", "Hatch 5 between the airlock and the lab is sealed."),
    ("The feed valve on tank 6 is not open.", "The feed valve on tank 8 is not open."),
    ("The circulation fan in node 1 is safe to run.", "The circulation fan in node 3 is safe to run."),
    ("After the storm the north access road to the quarry was reopened by the county crew.",
     "After the storm the south access road to the quarry was reopened by the county crew."),
    ("Dr Haddad is on call tonight.", "Dr Novak is on call tonight."),
    ("Backup of tenant 41 completed at 02:00 UTC.", "Backup of tenant 44 completed at 02:00 UTC."),
    ("Beehive 3 is queenless.", "Beehive 5 is queenless."),
    ("The bridge crane in hall 6 is rated for 20 t.", "The bridge crane in hall 7 is rated for 20 t."),
    ("The spare filter for scrubber 2 is not in stock.", "The spare filter for scrubber 4 is not in stock."),
]
# the same fact in other words, above the threshold: still absorbed
OTHER_PARAPHRASES = [
    ("Server db-07 is offline.", "The db-07 server is offline."),
    ("The shuttle departs at 17:30.", "The shuttle departs at 5:30 pm."),
    ("Invoice 7003 is overdue.", "Invoice 7003 has not been paid on time and is overdue."),
    ("Patient Ruiz in bed 9 is stable.", "The patient in bed 9, Ruiz, is stable."),
    ("The loading bay door in warehouse 3 is jammed.", "Warehouse 3's loading bay door is jammed."),
]


@pytest.fixture
def pair(tmp_path, real_embedder):
    """earth-1 and mars-1 on doltlite, sharing a file commons."""
    agents = _agents(tmp_path, real_embedder)
    try:
        yield agents
    finally:
        for agent in agents:
            agent.close()


def _agents(tmp_path, embedder, config: str = "") -> list[Agent]:
    home = tmp_path / "home"
    home.mkdir()
    if config:
        (home / "cmem.toml").write_text(config, encoding="utf-8")
    agents = [Agent.init(name, home=home, embedder=embedder) for name in ("earth-1", "mars-1")]
    for agent in agents:
        agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
    return agents


def _found(agent: Agent, text: str) -> bool:
    return any(hit.memory.content == text for hit in agent.recall(text, k=5))


def _pulled(earth: Agent, mars: Agent, pairs) -> dict:
    """earth-1 stores the first of each pair, mars-1 the second; earth-1 pulls mars-1."""
    for a, b in pairs:
        earth.store(a)
        mars.store(b)
    mars.push()
    return earth.pull()["peers"][0]["summary"]


def test_merging_never_hides_a_distinct_fact(pair):
    earth, mars = pair
    summary = _pulled(earth, mars, DISTINCT + PARAPHRASES)

    hidden = [text for pair_ in DISTINCT for text in pair_ if not _found(earth, text)]
    assert hidden == [], f"distinct facts no longer recalled after the merge: {hidden}"
    absorbed = [b for _, b in PARAPHRASES if not _found(earth, b)]
    assert summary["constructive"] >= len(PARAPHRASES) and len(absorbed) == len(PARAPHRASES), (summary, absorbed)


def test_an_agreement_below_the_similarity_threshold_hides_no_fact(pair):
    earth, mars = pair
    summary = _pulled(earth, mars, OBJECT_PAIRS + OTHER_PARAPHRASES)

    hidden = [text for pair_ in OBJECT_PAIRS for text in pair_ if not _found(earth, text)]
    assert len(OBJECT_PAIRS) == 25 and hidden == [], f"distinct facts no longer recalled after the merge: {hidden}"
    absorbed = [b for _, b in OTHER_PARAPHRASES if not _found(earth, b)]
    assert len(absorbed) == len(OTHER_PARAPHRASES), (summary, absorbed)


def test_the_pull_and_the_dream_read_the_similarity_threshold(tmp_path, real_embedder):
    """[merge] similarity_threshold = 0.99: a paraphrase at cosine 0.98 is kept apart by the
    pull, and the dream's detect stage does not call the two an agreement either."""
    earth, mars = _agents(tmp_path, real_embedder, "[merge]\nsimilarity_threshold = 0.99\n")
    try:
        paraphrase = [("Server db-07 is offline.", "The db-07 server is offline.")]
        summary = _pulled(earth, mars, paraphrase)
        assert summary["constructive"] == 0 and all(_found(earth, text) for text in paraphrase[0]), summary
        assert wave.CONSTRUCTIVE not in {p.relation for p in detect_all(earth)}
    finally:
        for agent in (earth, mars):
            agent.close()
