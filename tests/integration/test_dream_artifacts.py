"""A dream's artifacts travel: the dream branch is pushed, and a peer that trusts the
dreamer imports its syntheses (at half amplitude, with lineage), links whose ends it
holds, cluster assignments and prune hints (advice only)."""

from __future__ import annotations

import pytest

from collective.agent import Agent
from collective.dream.artifacts import import_from_peers
from collective.model.enums import LinkType
from collective.store.dream_tables import DreamTables
from tests.integration.dream_helpers import store_topics


@pytest.fixture
def pair(tmp_path, hash_embedder):
    home, commons = tmp_path / "home", tmp_path / "commons.db"
    earth = Agent.init("earth-1", home=home, embedder=hash_embedder)
    mars = Agent.init("mars-1", home=home, embedder=hash_embedder)
    try:
        for agent in (earth, mars):
            agent.add_remote("origin", f"file://{commons}")
        yield earth, mars
    finally:
        earth.close()
        mars.close()


def _dream_with_artifacts(earth: Agent) -> dict:
    ids = store_topics(earth, topics=2, per=4)
    earth.tables.memories.set(ids[-1], amplitude=0.08)  # weak enough to be pruned
    earth.repo.commit("a weak memory", author=earth.agent_id)
    earth.push()
    report = earth.dream()
    assert report["shared"]["pushed"] and report["counts"]["hallucinated"] == 2
    return report


def test_a_trusted_peers_dream_artifacts_are_imported_by_the_rules(pair):
    earth, mars = pair
    report = _dream_with_artifacts(earth)
    weak = report["pruned"][0]["id"]
    # the pull merges earth-1's memories (as they were before the dream), then imports its artifacts
    result = mars.pull()["dreams"]
    held_amplitude = mars.tables.memories.get(weak, as_of=mars.log(2)[-1].hash).amplitude
    [run] = result["runs"]
    assert run["imported"] and run["syntheses"] == 2 and run["clusters"] == report["counts"]["clusters"]
    for made in report["synthesised"]:
        theirs, ours = earth.get(made["id"]), mars.get(made["id"])
        assert ours.amplitude == pytest.approx(0.5 * theirs.amplitude)
        assert ours.parents == theirs.parents and ours.origin_agent == "earth-1"
        lineage = {l["target_id"] for l in mars.tables.links.touching(ours.id)
                   if l["link_type"] == LinkType.HALLUCINATED_FROM}
        assert lineage == set(ours.parents)
    links = mars.repo.select("skip_links", {"link_type": LinkType.WIRE})
    held = {m.id for m in mars.tables.memories.recallable()}
    assert links and all(l["source_id"] in held and l["target_id"] in held for l in links)
    hints = DreamTables(mars.repo).prune_hints.of_run(run["run"])
    assert [h["memory_id"] for h in hints] == [weak]
    assert mars.get(weak).amplitude == held_amplitude  # advice: nothing faded
    assert import_from_peers(mars.dream_port())["runs"] == []  # once


def test_an_untrusted_peers_dream_is_not_imported(pair):
    earth, mars = pair
    _dream_with_artifacts(earth)
    (mars.home.root / "cmem.toml").write_text("[dream]\nimport_trust = 0.6\n")
    [run] = mars.pull()["dreams"]["runs"]
    assert not run["imported"] and "trusted" in run["reason"]
    assert mars.tables.memories.count(hallucinated=1) == 0


def test_a_dream_is_shared_only_once_working_holds_what_it_made(pair, monkeypatch):
    """The dream branch reaches the commons after the merge: a crash between the two had left
    a finished run there whose syntheses every peer imported while the dreamer held none."""
    from collective.dream import artifacts
    earth, _ = pair
    seen = []
    real_share = artifacts.share

    def share(port, branch):
        made = DreamTables(port.repo).runs.get(branch.rsplit("/", 1)[-1], as_of=branch)["stats"]["synthesised"]
        ids = [m["id"] for m in made]
        seen.append(len(port.tables.memories.by_id(ids)) == len(ids) > 0)  # on working already
        return real_share(port, branch)

    monkeypatch.setattr(artifacts, "share", share)
    _dream_with_artifacts(earth)
    assert seen == [True]
