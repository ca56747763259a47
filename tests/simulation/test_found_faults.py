"""Faults the simulator found (tests/simulation/known.py), each reduced to the few steps that
show it, on real doltlite agents sharing a file commons."""

from __future__ import annotations

import re

import pytest

from collective.agent import Agent

FACT = "Valve E on the coolant loop is open."
CONTRADICTION = "Valve E on the coolant loop is not open."


@pytest.fixture
def trio(tmp_path, hash_embedder):
    agents = [Agent.init(name, home=tmp_path / "home", embedder=hash_embedder)
              for name in ("earth-1", "earth-2", "mars-1")]
    try:
        for agent in agents:
            agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        yield agents
    finally:
        for agent in agents:
            agent.close()


def _recalled(agent: Agent, memory_id: str, text: str) -> bool:
    return any(hit.memory.id == memory_id for hit in agent.recall(text, k=10, include_faded=True))


def test_a_memory_absorbed_into_one_its_origin_retracts_is_recalled_again(trio):
    """mars-1 absorbs earth-1's copy of a fact into its own, then retracts its own: earth-1 never
    retracted its copy, so mars-1 still recalls it (simulator seed 0, 3 agents, hash embedder)."""
    earth, _, mars = trio
    kept = earth.store(FACT).memory.id
    mine = mars.store(FACT).memory.id
    earth.push()
    mars.pull()
    assert mars.get(kept).absorbed_into == mine
    mars.forget(mine)
    assert _recalled(mars, kept, FACT)


def test_a_retraction_that_arrives_releases_what_the_retracted_memory_absorbed(trio):
    """earth-2 absorbed mars-1's copy into earth-1's; earth-1's retraction arrives: mars-1's copy
    is recalled again on earth-2."""
    earth, earth2, mars = trio
    retracted = earth.store(FACT).memory.id
    kept = mars.store(FACT).memory.id
    earth.push()
    mars.push()
    earth2.pull()
    assert earth2.get(kept).absorbed_into == retracted
    earth.forget(retracted)
    earth.push()
    earth2.pull()
    assert _recalled(earth2, kept, FACT)


def test_a_pull_that_takes_nothing_makes_no_commit(trio):
    """Three agents, a fact and its contradiction, two rounds of push and pull: in the second,
    the peers' branches moved only by their own merges (their copies' amplitude and dispute
    flags), so a pull that takes nothing must leave the head where it was."""
    earth, earth2, mars = trio
    earth.store(FACT)
    earth2.store(FACT)
    mars.store(CONTRADICTION)
    empty = []
    for _ in range(2):
        for agent in trio:
            agent.push()
        for agent in trio:
            before = agent.repo.head(agent.branch)
            agent.pull()
            message = agent.log(1)[0].message
            if agent.repo.head(agent.branch) != before and re.search(r": 0 new .*, 0 updated, 0 retracted", message):
                empty.append(f"{agent.agent_id}: {message}")
    assert empty == []


def test_a_pull_in_a_process_whose_embedder_differs_compares_one_model(trio):
    """A `cmem pull` beside agents made with another embedder: the agent's row names their
    model, the process embeds with its own. The refutation rule compared the stored vectors
    of the one with the other's embeddings of blended memories and failed on their sizes
    (simulator seed 1488, 5 agents, hash embedder; a CLI child pulling). Every vector it
    compares now comes from the embedder the process embeds with."""
    import dataclasses

    from collective.embedders import HashEmbedder
    from collective.model.enums import Relation
    from collective.quarantine.refutation import SameClaim

    earth = trio[0]
    plain = earth.store(FACT).memory
    blended = dataclasses.replace(earth.store(CONTRADICTION).memory,
                                  merge_history=[{"type": Relation.CONSTRUCTIVE}])

    class RowSaysOneProcessEmbedsAnother:
        version, dim = plain.model_version, plain.vector.shape[0]  # what the agent's row names
        embedder = HashEmbedder(dim=32)                           # what this process embeds with

        def embed(self, texts):
            return self.embedder.embed(texts)

    same = SameClaim(lambda: None, RowSaysOneProcessEmbedsAnother(), threshold=0.9)
    assert {same.vector(m).shape for m in (plain, blended)} == {(32,)}
