"""A dream cycle on each engine: review, accept, an incremental run, and a failure that
leaves working as it was."""

from __future__ import annotations

import pytest

from collective.agent import Agent
from collective.dream import report
from tests.integration.dream_helpers import store_topics

pytestmark = pytest.mark.usefixtures("engine")


def test_a_dream_cycle_on_each_engine(home, hash_embedder, monkeypatch):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        store_topics(agent, topics=3, per=4)
        working = agent.repo.head(agent.branch)

        monkeypatch.setattr(report, "cluster_rows", lambda *a: (_ for _ in ()).throw(RuntimeError("injected")))
        with pytest.raises(RuntimeError):
            agent.dream()
        monkeypatch.undo()
        assert agent.repo.head(agent.branch) == working and agent.repo.active_branch() == agent.branch

        reviewed = agent.dream(review=True)
        assert agent.repo.head(agent.branch) == working
        agent.accept_dream(reviewed["run"])
        assert agent.tables.memories.count(hallucinated=1) == reviewed["counts"]["hallucinated"] == 3
        assert agent.get(reviewed["synthesised"][0]["id"]).parents

        store_topics(agent, topics=1, per=2, seed=5)
        later = agent.dream()
        assert later["mode"] == "incremental" and later["counts"]["changed"] == 2
