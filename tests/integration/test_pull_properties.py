"""The pull on random memory sets, against real databases and a file commons, on both
engines: atomic (a failure at any write of the merge leaves nothing behind), idempotent,
and conserving every remote memory as its origin signed it. The plan itself is
checked on synthetic memories in tests/property/test_merge_plan.py."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from collective import merge
from collective.agent import Agent, MemoryInput
from collective.core import trust
from collective.identity import verify
from collective.model import Memory
from collective.quarantine import cases as quarantine
from collective.store.tables import Tables

TAU = 2 * math.pi

WORDS = ["pump", "valve", "coolant", "module", "dust", "storm", "rover", "ridge"]
texts = st.lists(st.sampled_from(WORDS), min_size=2, max_size=4).map(" ".join)
stances = st.sampled_from([0.0, 0.2, math.pi / 2, math.pi, TAU - 0.2])
memory_sets = st.lists(st.tuples(texts, stances, st.floats(0.1, 1.0)), min_size=1, max_size=5)
db_settings = settings(max_examples=8)  # each example builds real databases, on both engines


class World:
    """Two agents (earth-1 receives, mars-1 sends) and a file commons, in a fresh folder."""

    def __init__(self, root: Path, embedder):
        self.root = root
        self.receiver = Agent.init("earth-1", home=root / "home", embedder=embedder)
        self.sender = Agent.init("mars-1", home=root / "home", embedder=embedder)
        if self.receiver.location.engine == "dolt":  # a Dolt commons is a folder
            (root / "commons").mkdir()
            url = f"file://{root / 'commons'}"
        else:
            url = f"file://{root / 'commons.db'}"
        for a in (self.receiver, self.sender):
            a.add_remote("origin", url)

    def fill(self, agent: Agent, items) -> None:
        agent.store_many([MemoryInput(text, phase=phi, importance=amp) for text, phi, amp in items])

    def close(self) -> None:
        self.receiver.close()
        self.sender.close()


@pytest.fixture
def worlds(tmp_path, hash_embedder):
    made = []

    def make(local_items, remote_items) -> World:
        world = World(Path(tempfile.mkdtemp(dir=tmp_path)), hash_embedder)
        made.append(world)
        if local_items:
            world.fill(world.receiver, local_items)
        world.fill(world.sender, remote_items)
        world.sender.push()
        return world

    yield make
    for w in made:
        w.close()


TABLES = ("memories", "skip_links", "agents", "quarantine", "trust_events")


def snapshot(agent: Agent) -> dict:
    repo = agent.repo
    return {
        "branches": repo.branches(),
        "tables": {t: repo.scalar(f"SELECT dolt_hashof_table({repo.param})", (t,)) for t in TABLES},
        "rows": {t: sorted(json.dumps(r, sort_keys=True, default=lambda b: b.hex()) for r in repo.select(t))
                 for t in TABLES},
        "status": repo.query("SELECT * FROM dolt_status"),
    }


class Boom(RuntimeError):
    pass


class CountingRepo:
    """The repository, its writes counted. `dry`: writes are counted, not done.
    `fail_at`: that write (1-based) is done, then raises Boom."""

    WRITES = ("insert", "upsert", "update", "delete")

    def __init__(self, repo, *, dry: bool = False, fail_at: int | None = None):
        self._repo, self._dry, self._fail_at, self.writes = repo, dry, fail_at, 0

    def __getattr__(self, name):
        attr = getattr(self._repo, name)
        if name not in self.WRITES:
            return attr

        def write(*args, **kwargs):
            out = None if self._dry else attr(*args, **kwargs)
            self.writes += 1
            if self.writes == self._fail_at:
                raise Boom(f"injected failure at write {self.writes} ({name} {args[0]})")
            return out
        return write


@pytest.mark.usefixtures("engine")
@db_settings
@given(memory_sets, memory_sets, st.data())
def test_a_pull_is_atomic(worlds, monkeypatch, local_items, remote_items, data):
    world = worlds(local_items, remote_items)
    agent = world.receiver
    index = agent.index()
    before, index_before = snapshot(agent), (index.head, len(index))
    real_apply = merge.apply
    seen: dict = {}

    def apply_then_fail(tables, planned, *, watermark):
        dry = CountingRepo(tables.repo, dry=True)
        real_apply(Tables(dry), planned, watermark=watermark)  # a first pass, writing nothing: how many writes
        seen["writes"] = dry.writes
        seen["fail_at"] = data.draw(st.integers(1, dry.writes), label="fail at write")
        real_apply(Tables(CountingRepo(tables.repo, fail_at=seen["fail_at"])), planned, watermark=watermark)
        seen["applied"] = True  # not reached: the failing write raised

    with monkeypatch.context() as m:
        m.setattr(merge, "apply", apply_then_fail)
        with pytest.raises(Boom):
            agent.pull()
    event(f"failed at write {seen['fail_at']} of {seen['writes']}")
    assert "applied" not in seen and 1 <= seen["fail_at"] <= seen["writes"]
    # nothing of the failed pull is left: branch heads, tables, rows, the working set, the index
    assert snapshot(agent) == before and before["status"] == []
    assert not agent.repo.in_transaction
    index = agent.index()
    assert (index.head, len(index)) == index_before
    # afterwards the same pull goes through and leaves a clean working set
    report = agent.pull()
    assert report["peers"][0]["status"] == "merged"
    assert agent.repo.query("SELECT * FROM dolt_status") == []


@pytest.mark.usefixtures("engine")
@db_settings
@given(memory_sets, memory_sets)
def test_a_pull_is_idempotent(worlds, local_items, remote_items):
    world = worlds(local_items, remote_items)
    agent = world.receiver
    first = agent.pull()
    assert first["peers"][0]["status"] == "merged"
    after_first = snapshot(agent)
    commits = len(agent.repo.log(agent.branch))
    second = agent.pull()
    assert second["peers"][0]["status"] == "unchanged" and second["peers"][0]["commit"] is None
    assert snapshot(agent) == after_first
    assert len(agent.repo.log(agent.branch)) == commits


@pytest.mark.usefixtures("engine")
@db_settings
@given(memory_sets, memory_sets, memory_sets)
def test_a_pull_conserves_every_remote_memory(worlds, local_items, remote_items, more_items):
    world = worlds(local_items, remote_items)
    agent, sender = world.receiver, world.sender
    own_before = {r["id"]: r for r in agent.repo.select("memories")}
    agent.pull()
    world.fill(sender, more_items)  # a second window: reinforcements and new memories
    sender.push()
    report = agent.pull()["peers"][0]
    assert report["refused"] == {}
    for relation in ("constructive", "destructive", "partial", "updated"):
        if report["summary"].get(relation):
            event(relation)

    key = sender.identity.public_key
    held = {r["id"]: Memory.from_row(r) for r in agent.repo.select("memories")}
    assert set(own_before) <= set(held)  # nothing of ours was deleted
    for row in sender.repo.select("memories", {"origin_agent": "mars-1"}):
        theirs = Memory.from_row(row)
        mine = held.get(theirs.id)
        assert mine is not None, f"remote memory {theirs.id} lost"
        assert mine.content == theirs.content and mine.origin_agent == "mars-1"
        assert verify(key, mine.claim(), mine.signature)  # still itself, as its origin signed it
        if mine.absorbed_into is not None:  # an absorbed copy: its absorber holds the record
            absorber = held[mine.absorbed_into]
            assert any(h["source_id"] == mine.id for h in absorber.merge_history)
            assert agent.repo.select("skip_links", {"source_id": mine.id, "target_id": absorber.id,
                                                    "link_type": "consensus"})
        if mine.disputed:  # a disputed copy: linked and in a case
            links = agent.repo.select("skip_links", {"source_id": mine.id, "link_type": "disputes"})
            assert links
            for link in links:
                assert agent.repo.select("quarantine", {"id": quarantine.case_id(mine.id, link["target_id"])})
    # the receiver's trust in itself is untouched; the peer's stays within bounds
    scores = {r["agent_id"]: r["trust_score"] for r in agent.repo.select("agents")}
    assert scores["earth-1"] == 1.0 and trust.FLOOR <= scores["mars-1"] <= trust.CEILING
    assert not agent.repo.select("trust_events", {"agent_id": "earth-1"})
