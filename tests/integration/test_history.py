"""A memory's row history from Dolt (Agent.history): the commits that changed its row,
newest first, with its state after each. Both engines."""

from __future__ import annotations

import pytest

from collective.errors import BadInput

pytestmark = pytest.mark.usefixtures("engine")


def test_history_lists_each_change_of_the_row_newest_first(agent, foreign):
    stored = agent.store("the coolant pump in module C is safe to operate").memory
    agent.store("the rover battery was replaced")  # another row: not in the pump's history
    agent.store("the coolant pump in module C is safe to operate")  # reinforced: amplitude rises
    history = agent.history(stored.id)
    assert [(h["kind"], h["message"].split()[0], h["committer"]) for h in history] == [
        ("modified", "reinforce", "earth-1"), ("added", "store", "earth-1")]
    assert history[0]["amplitude"] > history[1]["amplitude"] == pytest.approx(stored.amplitude)
    assert history[0]["commit"] == agent.log(1)[0].hash
    assert {h["disputed"] for h in history} == {False} and {h["refuted_by"] for h in history} == {None}
    assert set(history[0]) >= {"commit", "committer", "email", "date", "message", "kind", "amplitude", "disputed",
                               "refuted_by", "valid_until", "retracted", "absorbed_into"}
    assert [h["commit"] for h in agent.history(stored.id, limit=1)] == [history[0]["commit"]]
    planted = foreign(agent, "mars-1", "the dust storm reaches the ridge on sol 12")
    assert [(h["kind"], h["message"]) for h in agent.history(planted.id)] == [("added", "pull mars-1")]
    assert agent.history("no-such-memory") == []


@pytest.mark.parametrize("limit", [0, -1, 10**9, "5", True])
def test_a_bad_limit_is_bad_input(agent, limit):
    with pytest.raises(BadInput, match="^limit: "):
        agent.history("any", limit=limit)
