"""`[merge] cross_encoder = true`: an agent's pulls judge with the cascade (the learned judge,
and the shipped cross-encoder on the pairs it leaves open), on a real commons."""

from __future__ import annotations

from collective.agent import Agent
from collective.judge import LearnedJudge
from collective.judge.cascade import CascadeJudge
from events_support import met

PUMP = "The coolant pump in module B is safe to operate"
NOT_PUMP = "The coolant pump in module B is not safe to operate"
# the readers see no clash here (the learned judge calls it partial); read together, it is one
SURGERY = "The patient in bed 4 is in surgery right now."
HOME = "The patient in bed 4 went home this morning."


def test_a_pull_with_the_cross_encoder_quarantines_what_the_readers_cannot_see(home, real_embedder, tmp_path):
    embedder = real_embedder
    agents = met(home, embedder, tmp_path / "commons.db")
    earth, mars = agents["earth-1"], agents["mars-1"]
    assert type(earth.judge) is LearnedJudge  # off by default
    assert earth.compare(SURGERY, HOME)["relation"] == "partial"
    earth.store(PUMP)
    earth.store(SURGERY)
    mars.store(NOT_PUMP)
    mars.store(HOME)
    earth.push()
    mars.push()
    earth.close()
    config = home / "cmem.toml"
    config.write_text(config.read_text() + "\n[merge]\ncross_encoder = true\n")
    with Agent.open("earth-1", home=home, embedder=embedder) as earth:
        assert type(earth.judge) is CascadeJudge
        (report,) = earth.pull("origin", peers=["mars-1"])["peers"]
        assert report["summary"]["destructive"] == 2, report["summary"]
    mars.close()
