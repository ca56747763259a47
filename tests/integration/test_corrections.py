"""Corrections: a store says which of the agent's own live memories it contradicts, by the
merge's judge; `supersedes` retracts the one it corrects in the same commit; only one's own
live memory can be superseded, and bad input writes nothing."""

from __future__ import annotations

import json

import pytest

from collective.errors import BadInput

pytestmark = pytest.mark.usefixtures("engine")

BUDGET = "Project Falcon's budget is 120,000 euros."
CORRECTION = "Correction: Project Falcon's budget was raised to 150,000 euros."
RAISED = "Project Falcon's budget was raised to 150,000 euros."
TOMATOES = "The greenhouse tomatoes are ripe."
ASK = "What is Project Falcon's budget?"


@pytest.mark.parametrize("index_loaded", [False, True], ids=["scanned", "indexed"])
def test_a_correction_names_the_memory_it_contradicts(trio, index_loaded):
    """Found alike by a scan of the agent's own memories (a process with no index loaded,
    as `cmem store`) and by the index a long-lived process holds."""
    e1 = trio["earth-1"]
    old = e1.store(BUDGET).memory
    if index_loaded:
        e1.recall(ASK)
    assert e1.keeper.loaded is index_loaded
    unrelated = e1.store(TOMATOES)
    assert unrelated.contradicts == []
    correction = e1.store(CORRECTION)
    assert correction.contradicts == [old.id]
    assert correction.to_dict()["contradicts"] == [old.id] and correction.to_dict()["supersedes"] is None
    # a peer's memory is not the agent's own: nothing to say about it here
    m1 = trio["mars-1"]
    m1.store(BUDGET)
    m1.push()
    e1.forget(old.id)
    e1.pull()
    assert e1.store(CORRECTION).contradicts == []


def test_supersedes_retracts_the_old_memory_in_the_same_commit(trio, cmem):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    old = e1.store(BUDGET).memory
    probe = e1.store(CORRECTION)
    assert probe.contradicts == [old.id]
    e1.forget(probe.memory.id)
    head = e1.repo.head(e1.branch)
    done = e1.store(RAISED, supersedes=old.id)
    assert done.supersedes == old.id and done.contradicts == []
    assert [c.hash for c in e1.log(2)][1] == head  # one commit
    assert e1.get(old.id).retracted and e1.get(done.memory.id).parents == [old.id]
    assert [h.memory.content for h in e1.recall(ASK)] == [RAISED]
    e1.push()
    m1.pull()
    assert [h.memory.content for h in m1.recall(ASK)] == [RAISED]
    # the CLI's --supersedes, and its JSON
    again = json.loads(cmem("store", BUDGET, "--agent", "mars-1", "--json").stdout)
    fixed = cmem("store", RAISED, "--supersedes", again["id"], "--agent", "mars-1", "--json")
    assert fixed.exit_code == 0, fixed.output
    assert json.loads(fixed.stdout)["supersedes"] == again["id"]


def test_only_ones_own_live_memory_can_be_superseded(trio, cmem):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    theirs = m1.store(BUDGET).memory
    m1.push()
    e1.pull()
    mine = e1.store(TOMATOES).memory
    gone = e1.store("The airlock on deck 2 is sealed.").memory
    e1.forget(gone.id)
    head = e1.repo.head(e1.branch)
    for bad, why in ((theirs.id, "belongs to mars-1"), ("no-such-memory", "no memory"), (gone.id, "is retracted"),
                     (mine.id, "holds this text already")):
        text = TOMATOES if bad == mine.id else RAISED
        with pytest.raises(BadInput, match=why) as raised:
            e1.store(text, supersedes=bad)
        assert raised.value.field == "supersedes"
        done = cmem("store", text, "--supersedes", bad, "--agent", "earth-1")
        assert done.exit_code == 2 and done.output.startswith("Error: supersedes: "), done.output
        assert len(done.output.strip().splitlines()) == 1
    assert e1.repo.head(e1.branch) == head and not e1.get(mine.id).retracted
