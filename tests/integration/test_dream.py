"""Dream cycles on real doltlite agents: co-access folding, incremental selection,
determinism across jobs, syntheses, prune rules, failure safety."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import joblib
import pytest

from collective.dream import partition, report
from collective.dream.stages import detect, transfer
from collective.merge import judging
from collective.model import iso
from collective.model.enums import LinkType
from collective.store.dream_tables import CoAccessCounts, DreamTables
from tests.integration.conftest import plant_foreign
from tests.integration.dream_helpers import detect_all, store_topics

NOW = datetime.now(timezone.utc).replace(microsecond=0)


def test_recall_counts_coaccess_and_the_dream_folds_it_by_the_seeds_formula(agent):
    ids = store_topics(agent, topics=1, per=3)
    vector = agent.get(ids[0]).vector
    head = agent.repo.head(agent.branch)
    for _ in range(2):
        assert len(agent.recall("pump", k=3, vector=vector)) == 3
    agent.flush_access()
    assert agent.repo.head(agent.branch) == head  # recall counts, never commits
    assert CoAccessCounts(agent.repo).of(ids) == {i: (2, pytest.approx(1.04 ** 2)) for i in ids}
    report = agent.dream()
    assert report["counts"]["strengthened"] == 3
    assert {i: agent.get(i).amplitude for i in ids} == {i: pytest.approx(0.5 * 1.04 ** 2) for i in ids}
    assert CoAccessCounts(agent.repo).all() == {}  # folded once, not twice
    assert agent.status()["index"]["current"]  # told what the dream changed, it reads no diff
    assert agent.index().amplitudes(ids) == [pytest.approx(0.5 * 1.04 ** 2)] * 3
    assert len(agent.index()) == 4  # the synthesis too
    assert agent.status()["stability"] == pytest.approx(report["stability"]["after"], abs=1e-6)


def test_an_incremental_run_touches_only_what_changed_and_its_neighbours(agent):
    store_topics(agent, topics=10, per=6)
    first = agent.dream(now=NOW)
    assert first["mode"] == "full" and first["counts"]["selected"] == 60
    changed = store_topics(agent, topics=1, per=2, seed=99)
    later = NOW + timedelta(seconds=5)
    second = agent.dream(now=later)
    counts = second["counts"]
    assert second["mode"] == "incremental" and counts["changed"] == 2
    assert counts["selected"] == counts["changed"] + counts["neighbours"] < 2 * (8 + 1)
    stamped = {m.id for m in agent.tables.memories.recallable() if m.last_consolidated_at == iso(later)}
    assert set(changed) <= stamped and len(stamped) == counts["selected"]


def _hash(agent, table: str, ref: str) -> str:
    return agent.repo.scalar("SELECT dolt_hashof_table(?, ?)", (table, ref))


def test_one_job_and_two_jobs_give_identical_databases(agent, monkeypatch):
    monkeypatch.setattr(partition, "PARALLEL_TASKS", 2)  # workers even for a few clusters
    monkeypatch.setattr(judging, "PARALLEL_PAIRS", 2)  # and the judge on every core
    workers = []
    real = joblib.Parallel.__call__
    monkeypatch.setattr(joblib.Parallel, "__call__", lambda self, tasks: workers.append(self.n_jobs) or real(self, tasks))
    store_topics(agent, topics=12, per=5)
    one = agent.dream(jobs=1, review=True, now=NOW)
    assert workers == []
    two = agent.dream(jobs=2, review=True, now=NOW)
    assert workers == [2]
    assert one["branch"] != two["branch"] and one["counts"]["clusters"] >= 10
    for table in ("memories", "skip_links"):
        assert _hash(agent, table, one["branch"]) == _hash(agent, table, two["branch"])
    clusters = DreamTables(agent.repo).clusters
    assert ([c["memory_ids"] for c in clusters.of_run(one["run"], as_of=one["branch"])]
            == [c["memory_ids"] for c in clusters.of_run(two["run"], as_of=two["branch"])])


def test_judging_in_small_blocks_gives_the_same_pairs(agent, monkeypatch):
    store_topics(agent, topics=6, per=5)
    whole = detect_all(agent)
    monkeypatch.setattr(detect, "BLOCK_TEXTS", 6)
    assert len(detect._blocks(30, [(i, j, 1.0) for i in range(30) for j in range(i + 1, 30, 7)])) > 5
    assert detect_all(agent) == whole and len(whole) >= 20


def test_a_synthesis_has_parents_lineage_links_and_less_amplitude(agent):
    store_topics(agent, topics=2, per=4)
    report = agent.dream()
    assert report["counts"]["hallucinated"] == 2
    for made in report["synthesised"]:
        memory = agent.get(made["id"])
        parents = [agent.get(p) for p in memory.parents]
        assert memory.hallucinated and len(parents) == 3
        assert memory.amplitude == pytest.approx(0.5 * sum(p.amplitude for p in parents) / 3)
        links = {(l["target_id"], l["link_type"]) for l in agent.tables.links.touching(memory.id)}
        assert links == {(p.id, LinkType.HALLUCINATED_FROM) for p in parents}
        assert all("pump" in p.content.lower() for p in parents)
    assert agent.dream(full=True)["counts"]["hallucinated"] == 0  # made once


def test_prune_fades_own_memories_advises_foreign_ones_and_spares_lineage(agent):
    lonely, parent = store_topics(agent, topics=2, per=1, importance=0.15)  # strength 0.15 < 0.2
    foreign = plant_foreign(agent, "mars-1", "Dust storm over the ridge", amplitude=0.15)  # trust not counted
    child = agent.store("Pump 1 needs a new seal").memory.id
    agent.tables.memories.set(child, parents=f'["{parent}"]')
    agent.repo.commit("lineage", author=agent.agent_id)
    with open(agent.home.root / "cmem.toml", "a") as f:
        f.write("\n[dream]\nprune_below = 0.2\n")
    report = agent.dream()
    assert (report["counts"]["faded"], report["counts"]["advised"], report["counts"]["spared"]) == (1, 1, 1)
    assert agent.get(lonely).amplitude == pytest.approx(0.075)
    assert agent.get(parent).amplitude == pytest.approx(0.15)
    assert agent.get(foreign.id).amplitude == pytest.approx(0.15)
    hints = {h["memory_id"]: h["reason"] for h in DreamTables(agent.repo).prune_hints.of_run(report["run"])}
    assert set(hints) == {lonely, foreign.id} and hints[foreign.id].startswith("advised")
    assert agent.tables.memories.count() == 4  # nothing deleted


def test_prune_weighs_amplitude_and_age_not_trust_nor_an_open_dispute(agent):
    """A dream prunes what fading would: a peer's low score and a dispute's penalty are no
    weakness of the memory (core.scoring.fading)."""
    (disputed,) = store_topics(agent, topics=1, per=1, importance=0.15)
    distrusted = plant_foreign(agent, "mars-1", "Dust storm over the ridge", amplitude=0.9)
    with agent.repo.transaction():
        agent.tables.memories.set(disputed, disputed=1)  # weak as a dispute's penalty leaves it
        agent.tables.agents.write({"agent_id": "mars-1", "public_key": "key", "trust_score": 0.1,
                                   "branch_name": "mars-1/working", "created_at": iso(datetime.now(timezone.utc))})
        agent.repo.commit("a dispute, and a peer trusted little", author=agent.agent_id)  # strength 0.09
    with open(agent.home.root / "cmem.toml", "a") as f:
        f.write("\n[dream]\nprune_below = 0.2\n")
    report = agent.dream()
    assert (report["counts"]["faded"], report["counts"]["advised"], report["counts"]["spared"]) == (0, 0, 0)
    assert agent.get(disputed).amplitude == pytest.approx(0.15)
    assert agent.get(distrusted.id).amplitude == pytest.approx(0.9)


@pytest.mark.parametrize("where", ["stage", "write"])
def test_a_failure_mid_run_leaves_the_working_branch_unchanged(agent, monkeypatch, where):
    store_topics(agent, topics=3, per=4)
    vector = agent.get(agent.tables.memories.recallable()[0].id).vector
    agent.recall("pump", k=3, vector=vector)
    head = agent.repo.head(agent.branch)
    hashes = {t: _hash(agent, t, agent.branch) for t in ("memories", "skip_links", "dream_runs")}

    def boom(*args, **kwargs):
        raise RuntimeError("injected")

    if where == "stage":
        monkeypatch.setattr(transfer, "transfer", boom)
    else:
        monkeypatch.setattr(report, "cluster_rows", boom)  # inside the write, after memories and links
    with pytest.raises(RuntimeError, match="injected"):
        agent.dream()
    assert agent.repo.head(agent.branch) == head
    assert agent.repo.active_branch() == agent.branch
    assert {t: _hash(agent, t, agent.branch) for t in hashes} == hashes
    assert CoAccessCounts(agent.repo).all()  # the co-access counts wait for a run that completes


def test_a_second_dream_while_one_runs_is_refused_and_does_nothing(agent, monkeypatch):
    """Two dreams of one agent started in the same second both chose the same branch name and
    the second failed on it; a second later, both ran and consolidated the same memories."""
    from collective.dream import cycle

    store_topics(agent, topics=2, per=3)
    real, refused = cycle.consolidate.run, []

    def run_and_dream_again(*args, **kwargs):
        before = agent.repo.branches()
        with pytest.raises(cycle.DreamFailed, match="another dream of .* is running"):
            agent.dream()
        refused.append(agent.repo.branches() == before)
        return real(*args, **kwargs)

    monkeypatch.setattr(cycle.consolidate, "run", run_and_dream_again)
    agent.dream()
    assert refused == [True]
    assert len(DreamTables(agent.repo).runs.of_agent(agent.agent_id)) == 1
    monkeypatch.setattr(cycle.consolidate, "run", real)
    agent.dream()  # the lock was let go
    assert len(DreamTables(agent.repo).runs.of_agent(agent.agent_id)) == 2
