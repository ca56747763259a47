"""A dream cycle on each engine: review, accept, an incremental run, and a failure that
leaves working as it was."""

from __future__ import annotations

import pytest

from collective.agent import Agent
from collective.dream import report
from collective.errors import NotFound
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


def test_only_a_dream_branch_made_here_is_accepted(home, hash_embedder, tmp_path, sharing, engine):
    """A dream branch as fetched (a peer's, or this agent's own as the commons holds it,
    which anyone may have written) is never merged into working."""
    folder = tmp_path / "commons"
    folder.mkdir()
    url = f"file://{folder / 'commons.db'}" if engine == "doltlite" else f"file://{folder}"
    with sharing(home, url, hash_embedder) as trio:
        e1, e2 = trio["earth-1"], trio["earth-2"]
        store_topics(e1, topics=3, per=4)
        e1.push()
        reviewed = e1.dream(review=True)  # its branch goes to the commons
        branch = reviewed["branch"]
        for agent in (e1, e2):
            agent.repo.fetch("origin")
            working = agent.repo.head(agent.branch)
            with pytest.raises(NotFound):
                agent.accept_dream(f"origin/{branch}")
            assert agent.repo.head(agent.branch) == working
        assert e1.accept_dream(branch)["status"] == "accepted"
