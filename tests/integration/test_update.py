"""Correcting a memory: the corrected text is a new memory whose parent is the old one, which
is retracted, in one commit; a peer takes both; bad input changes nothing."""

from __future__ import annotations

import json

import pytest

from collective.errors import BadInput, NotFound

pytestmark = pytest.mark.usefixtures("engine")

OLD = "The water recycler in module E was serviced on sol 12."
NEW = "The water recycler in module E was serviced on sol 14."


def test_an_update_retracts_the_old_memory_and_its_correction_travels(trio, cmem):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    old = e1.store(OLD, tags=["recycler"], importance=0.8).memory
    e1.push()
    m1.pull()
    head = e1.repo.head(e1.branch)
    done = cmem("update", old.id, NEW, "--agent", "earth-1", "--json")
    assert done.exit_code == 0, done.output
    updated = json.loads(done.stdout)
    assert updated["replaces"] == old.id and updated["content"] == NEW
    assert [c.hash for c in e1.log(2)][1] == head  # one commit
    new = e1.get(updated["id"])
    assert new.parents == [old.id] and new.tags == ["recycler"] and new.amplitude == pytest.approx(0.8)
    assert e1.get(old.id).retracted
    e1.push()
    m1.pull()
    for agent in (e1, m1):
        hits = [h.memory.id for h in agent.recall("when was the water recycler serviced?", k=5)]
        assert updated["id"] in hits and old.id not in hits, agent.agent_id
        assert agent.get(old.id).retracted


def test_bad_updates_say_why_and_write_nothing(trio):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    mine = e1.store(OLD).memory
    theirs = m1.store(NEW).memory
    m1.push()
    e1.pull()
    head = e1.repo.head(e1.branch)
    with pytest.raises(BadInput, match="belongs to mars-1; only its origin can update it"):
        e1.update(theirs.id, "Something else.")
    with pytest.raises(BadInput, match="nothing to update"):
        e1.update(mine.id, OLD)
    with pytest.raises(BadInput, match="content"):
        e1.update(mine.id, "   ")
    with pytest.raises(NotFound):
        e1.update("no-such-memory", NEW)
    assert e1.repo.head(e1.branch) == head and not e1.get(mine.id).retracted
    e1.forget(mine.id)
    head = e1.repo.head(e1.branch)
    with pytest.raises(BadInput, match="is retracted"):
        e1.update(mine.id, NEW)
    assert e1.repo.head(e1.branch) == head


def test_an_update_keeps_the_stance_its_writer_gave(trio):
    """A denial stored with --stance deny stays a denial when its wording is corrected."""
    e1 = trio["earth-1"]
    old = e1.store(OLD, stance="deny").memory
    new = e1.get(e1.update(old.id, NEW)["id"])
    assert (new.stance, new.phase) == ("deny", pytest.approx(old.phase))
    plain = e1.store("The airlock in module F was serviced on sol 3.").memory
    assert e1.get(e1.update(plain.id, "The airlock in module F was serviced on sol 4.")["id"]).stance is None
