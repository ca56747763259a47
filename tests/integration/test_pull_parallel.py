"""A pull's work split over cores and parts: judged in forked workers it merges exactly as
judged in one process; candidates searched in parts are those searched at once."""

from __future__ import annotations

import pytest

from collective import open_agent
from collective.agent import Agent
from collective.merge import judging
from collective.judge import RuleJudge
from collective.merge import candidates as merge_candidates
from collective.runtime import parallel


@pytest.mark.usefixtures("engine")
def test_a_pull_judged_on_every_core_merges_as_one_judged_in_one_process(home, tmp_path, hash_embedder,
                                                                         monkeypatch, analysed_texts):
    said = [f"The coolant pump in module {m} is safe to operate." for m in "ABCDEFGH"]
    heard = [*said[:3], *(t.replace(" is ", " is not ") for t in said[3:6]),
             *(t.replace(" is ", " is probably ") for t in said[6:])]
    results, read_here, judged_here = [], [], []
    monkeypatch.setattr(parallel, "workers", lambda: 2)  # this process judges the first half, on any machine
    for parallel_pairs in (10**9, 1):
        monkeypatch.setattr(judging, "PARALLEL_PAIRS", parallel_pairs)
        root = tmp_path / str(parallel_pairs)
        a = Agent.init("earth-1", home=root / "home", embedder=hash_embedder)
        b = Agent.init("mars-1", home=root / "home", embedder=hash_embedder)
        try:
            url = f"file://{root / 'commons.db'}" if a.repo.dialect == "sqlite" else f"file://{root / 'commons'}"
            for agent in (a, b):
                agent.add_remote("origin", url)
            a.store_many([{"content": t} for t in said])
            b.store_many([{"content": t} for t in heard])
            b.push()
            a.close()
            a = open_agent("earth-1", home=root / "home", embedder=hash_embedder, judge=RuleJudge())  # a cold judge
            analysed_texts.clear()
            seen = analysed_texts
            judged: list[tuple] = []
            real_judge = a.judge.judge
            monkeypatch.setattr(a.judge, "judge", lambda *args: judged.append(args) or real_judge(*args))
            (report,) = a.pull("origin")["peers"]
            read_here.append(len(set(seen) & (set(heard) - set(said))))
            judged_here.append(len(judged))
            content = {m["id"]: m["content"] for m in a.repo.select("memories", columns=("id", "content"))}
            results.append((report["summary"]["destructive"], report["summary"]["constructive"],
                            sorted((content[p["remote"]], content[p["local"]], p["relation"], p["reason"])
                                   for p in report["pairs"])))
        finally:
            a.close()
            b.close()
    assert results[0] == results[1]
    assert results[0][0] == 3 and results[0][1] == 3
    # one process read every arriving text; with workers this one read only its share
    assert read_here[0] == len(set(heard) - set(said)) and 0 < read_here[1] < read_here[0]
    assert judged_here[0] == len(report["pairs"]) and 0 < judged_here[1] < judged_here[0]


def test_candidates_found_in_parts_are_those_found_at_once(agent, monkeypatch, loose_memory):
    topics = ["coolant pump", "water recycler", "rover 5 battery", "EVA 3 schedule", "greenhouse oxygen"]
    agent.store_many([{"content": f"The {t} in module {m} is {s}."} for t in topics for m in "ABC"
                      for s in ("nominal", "failing")])
    incoming = []
    for n, t in enumerate(topics * 2):
        m = loose_memory(f"The {t} in module {'ABC'[n % 3]} is being checked.")
        m.vector = agent.embedder.embed([m.content])[0]
        m.dim, m.model_version = agent.dim, agent.embedder_version
        incoming.append(m)

    def found() -> dict:
        by_id = merge_candidates.find_candidates(agent.index(), agent.tables.memories, incoming, 0.1)
        return {mid: [(c.id, round(s, 6)) for c, s in hits] for mid, hits in by_id.items()}

    at_once = found()
    monkeypatch.setattr(merge_candidates, "SEARCH_PART", 3)
    assert found() == at_once and sum(map(len, at_once.values())) > len(incoming)
