"""`cmem dream` and `cmem dream accept`: JSON shapes, review, bad input, and `cmem pull`
importing a peer's dream artifacts."""

from __future__ import annotations

import json

from click.testing import CliRunner

from collective.agent import Agent
from collective.cli import cli
from tests.integration.dream_helpers import store_topics

REPORT_KEYS = {"run", "branch", "base", "head", "mode", "status", "jobs", "counts", "clusters", "coherence",
               "stability", "strengthened", "disputed", "synthesised", "pruned", "coaccess_folded", "shared",
               "seconds"}


def run(home, *args: str, code: int = 0):
    result = CliRunner().invoke(cli, [*args, "--home", str(home)])
    assert result.exit_code == code, (result.output, result.exception)
    return result


def test_dream_review_then_accept(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        store_topics(agent, topics=2, per=4)
        working = agent.repo.head(agent.branch)
    reviewed = json.loads(run(home, "dream", "--review", "--jobs", "2", "--json").stdout)
    assert set(reviewed) == REPORT_KEYS and reviewed["status"] == "review" and reviewed["jobs"] == 2
    assert reviewed["branch"] == f"earth-1/dream/{reviewed['run']}"
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as agent:
        assert agent.repo.head(agent.branch) == working  # waits for review
    accepted = json.loads(run(home, "dream", "accept", reviewed["run"], "--json").stdout)
    assert accepted["status"] == "accepted"
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as agent:
        assert agent.tables.memories.count(hallucinated=1) == reviewed["counts"]["hallucinated"] == 2
    assert "is accepted, not waiting" in run(home, "dream", "accept", reviewed["run"], code=2).output
    text = run(home, "dream").stdout
    assert "incremental" in text and "stability" in text


def test_bad_dream_input_exits_2_and_writes_nothing(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as agent:
        store_topics(agent, topics=1, per=3)
        head = agent.repo.head(agent.branch)
    assert "jobs" in run(home, "dream", "--jobs", "0", code=2).output
    assert "run" in run(home, "dream", "accept", "19990101-000000", code=2).output
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as agent:
        assert agent.repo.head(agent.branch) == head and not [b for b in agent.repo.branches() if "/dream/" in b]


def test_pull_imports_a_peers_dream(tmp_path, home, hash_embedder):
    commons = f"file://{tmp_path / 'commons.db'}"
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
        earth.add_remote("origin", commons)
        store_topics(earth, topics=2, per=4)
        earth.push()
    assert json.loads(run(home, "dream", "--agent", "earth-1", "--json").stdout)["shared"]["pushed"]
    with Agent.init("mars-1", home=home, embedder=hash_embedder) as mars:
        mars.add_remote("origin", commons)
    pulled = json.loads(run(home, "pull", "--agent", "mars-1", "--json").stdout)
    [imported] = pulled["dreams"]["runs"]
    assert imported["peer"] == "earth-1" and imported["imported"] and imported["syntheses"] == 2
    assert "imported 0 syntheses" not in run(home, "pull", "--agent", "mars-1").stdout
