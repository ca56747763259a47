"""Judging on every core: forked workers reach exactly the verdicts one process
reaches, send back what they analysed, and leave no process behind."""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from collective import judge, merge
import importlib
exchange = importlib.import_module("collective.exchange.pull")
from collective.runtime import parallel
from collective.agent import Agent
from collective.judge import CallbackJudge, RuleJudge
from collective.model import Memory, content_hash, uuid7

DATA = Path(__file__).resolve().parent / "data"


def children() -> set[int]:
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        pids.update(int(p) for p in (task / "children").read_text().split())
    return pids


def in_child() -> bool:
    return os.getpid() != PARENT


PARENT = os.getpid()


def fork_map(fn, chunks):
    """fn over each chunk: the first in this process, the others in forked workers, as a pull judges."""
    with parallel.Forked(fn, chunks[1:]) as rest:
        return [fn(chunks[0]), *rest.results()]


def test_fork_map_returns_each_chunk_in_order():
    chunks = parallel.split(list(range(101)), 4)
    assert [len(c) for c in chunks] == [26, 26, 26, 23]
    assert parallel.split([], 4) == []
    assert fork_map(lambda c: [x * x for x in c], chunks) == [[x * x for x in c] for c in chunks]


def test_children_use_the_parents_objects_without_pickling_them():
    held = {"lock": threading.Lock(), "offset": 7}  # a lock cannot be pickled
    assert fork_map(lambda c: [held["offset"] + x for x in c], [[1], [2], [3]]) == [[8], [9], [10]]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads child processes from /proc")
def test_a_worker_that_raises_or_dies_fails_the_call_and_no_process_is_left():
    before = children()

    def raises(chunk):
        if in_child():
            raise ValueError(f"cannot judge {chunk}")
        return chunk

    with pytest.raises(parallel.WorkerFailed, match=r"ValueError: cannot judge \[2\]"):
        fork_map(raises, [[1], [2]])

    def dies(chunk):
        if in_child():
            os._exit(3)
        return chunk

    with pytest.raises(parallel.WorkerFailed, match="died"):
        fork_map(dies, [[1], [2]])

    def parent_fails(chunk):
        if not in_child():
            raise KeyError("the parent's own chunk")
        threading.Event().wait(30)  # a slow child: it is stopped, not waited for
        return chunk

    with pytest.raises(KeyError):
        fork_map(parent_fails, [[1], [2], [3]])
    assert children() == before


def memory(content: str) -> Memory:
    stamp = "2026-11-01T00:00:00.000000Z"
    return Memory(id=uuid7(), content=content, summary=content, vector=np.ones(4, dtype=np.float32) / 2, dim=4,
                  model_version="m", content_hash=content_hash(content), amplitude=0.5, phase=0.0,
                  category="knowledge", origin_agent="mars-1", created_at=stamp, updated_at=stamp)


def count_analyses(monkeypatch) -> list[str]:
    """Texts analysed in this process (a forked child appends to its own copy)."""
    seen: list[str] = []
    real = judge.analyse_text
    monkeypatch.setattr(judge, "analyse_text", lambda text: seen.append(text) or real(text))
    return seen


def plain(v: merge.PairVerdict) -> tuple:
    """A verdict comparable with ==: an independent pair's phase difference is NaN."""
    return v.relation, None if math.isnan(v.dphi) else v.dphi, v.similarity, v.confidence, v.reason


def test_verdicts_judged_on_every_core_are_those_of_one_process(monkeypatch):
    labelled = [json.loads(line) for line in (DATA / "judge_dev.jsonl").read_text().splitlines() if line.strip()]
    pairs = [(memory(p["a"]), memory(p["b"]), 0.9) for p in labelled]
    one_process = [merge.JudgeComparator(RuleJudge()).relate(a, b, s) for a, b, s in pairs]
    texts = {m.content for a, b, _ in pairs for m in (a, b)}

    monkeypatch.setattr(exchange, "PARALLEL_PAIRS", 1)
    monkeypatch.setattr(parallel, "workers", lambda: 3)
    comparator = merge.JudgeComparator(RuleJudge())
    seen = count_analyses(monkeypatch)
    with exchange._judging(comparator, pairs, unread=texts) as (decided, theirs):
        for more in theirs:
            decided.update(more)
    assert [plain(decided[(a.id, b.id)]) for a, b, _ in pairs] == [plain(v) for v in one_process]
    # this process read only its own third; the workers sent back theirs
    assert 0 < len(set(seen)) < len(texts) / 2
    analysed_here = len(seen)
    for text in texts:
        comparator.judge.analyse(text)
    assert len(seen) == analysed_here


@pytest.mark.usefixtures("engine")
def test_a_pull_judged_on_every_core_merges_as_one_judged_in_one_process(home, tmp_path, hash_embedder,
                                                                         monkeypatch):
    said = [f"The coolant pump in module {m} is safe to operate." for m in "ABCDEFGH"]
    heard = [*said[:3], *(t.replace(" is ", " is not ") for t in said[3:6]),
             *(t.replace(" is ", " is probably ") for t in said[6:])]
    results, read_here, judged_here = [], [], []
    for parallel_pairs in (10**9, 1):
        monkeypatch.setattr(exchange, "PARALLEL_PAIRS", parallel_pairs)
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
            a = Agent.open("earth-1", home=root / "home", embedder=hash_embedder, judge=RuleJudge())  # a cold judge
            seen = count_analyses(monkeypatch)
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


def test_candidates_found_in_parts_are_those_found_at_once(agent, monkeypatch):
    topics = ["coolant pump", "water recycler", "rover 5 battery", "EVA 3 schedule", "greenhouse oxygen"]
    agent.store_many([{"content": f"The {t} in module {m} is {s}."} for t in topics for m in "ABC"
                      for s in ("nominal", "failing")])
    incoming = []
    for n, t in enumerate(topics * 2):
        m = memory(f"The {t} in module {'ABC'[n % 3]} is being checked.")
        m.vector = agent.embedder.embed([m.content])[0]
        m.dim, m.model_version = agent.dim, agent.embedder_version
        incoming.append(m)

    def found() -> dict:
        return {mid: [(c.id, round(s, 6)) for c, s in hits]
                for mid, hits in exchange._candidates(agent, incoming, 0.1).items()}

    at_once = found()
    monkeypatch.setattr(exchange, "SEARCH_PART", 3)
    assert found() == at_once and sum(map(len, at_once.values())) > len(incoming)


def test_a_plugged_in_judge_is_asked_in_this_process_only(monkeypatch):
    """A callback may hold connections (an LLM client) that a forked child must not share."""
    asked_in: set[int] = set()

    def callback(a, b, similarity):
        asked_in.add(os.getpid())
        return "independent", 0.9, "a fake"

    monkeypatch.setattr(exchange, "PARALLEL_PAIRS", 1)
    pairs = [(memory(f"tank {n} is full"), memory(f"tank {n} is empty"), 0.9) for n in range(40)]
    with exchange._judging(merge.JudgeComparator(CallbackJudge(callback)), pairs, unread=set()) as (mine, theirs):
        assert len(mine) == len(pairs) and list(theirs) == []
    assert asked_in == {os.getpid()}
