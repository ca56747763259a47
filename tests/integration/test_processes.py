"""Child processes and concurrent writers: the doltlite bootstrap must reach every process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from joblib import Parallel, delayed
from joblib.externals.loky import get_reusable_executor

from collective.agent import Agent
from collective.embedders import HashEmbedder
from collective.errors import StorageError
from collective.runtime.doltlite_boot import BOOTSTRAP_MARKER

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def probe(db_path: str, branch: str) -> dict:
    """Runs in a worker: open the agent's database and ask Dolt who it is."""
    from collective.store.doltlite import DoltliteRepository

    repo = DoltliteRepository(db_path)
    try:
        return {"pid": os.getpid(), "version": repo.scalar("SELECT dolt_version()"),
                "head": repo.head(branch), "rows": repo.count("memories", as_of=branch)}
    finally:
        repo.close()


def test_the_bootstrap_marker_is_not_inherited():
    assert BOOTSTRAP_MARKER not in os.environ


def test_loky_workers_have_dolt(agent):
    agent.store("the coolant pump is safe")
    db = str(agent.folder / "memory.db")
    results = Parallel(n_jobs=2, backend="loky")(delayed(probe)(db, agent.branch) for _ in range(4))
    assert {r["pid"] for r in results}.isdisjoint({os.getpid()})
    assert {r["version"] for r in results} == {agent.repo.scalar("SELECT dolt_version()")}
    assert all(r["head"] == agent.repo.head(agent.branch) and r["rows"] == 1 for r in results)


def test_loky_worker_with_the_marker_gets_plain_sqlite(agent):
    """The pitfall itself: a worker that inherits the marker cannot speak Dolt."""
    executor = get_reusable_executor(max_workers=1, env={BOOTSTRAP_MARKER: "1"}, kill_workers=True)
    try:
        with pytest.raises(StorageError, match="plain SQLite"):
            executor.submit(probe, str(agent.folder / "memory.db"), agent.branch).result(timeout=120)
    finally:
        executor.shutdown(wait=True, kill_workers=True)


def run_child(code: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=180, cwd=ROOT, env={**os.environ, **(env or {})})


def test_subprocess_child_opens_the_agent(agent):
    agent.store("the coolant pump is safe")
    child = run_child(f"""
        from collective.agent import Agent
        from collective.embedders import HashEmbedder
        with Agent.open("earth-1", home={str(agent.home.root)!r}, embedder=HashEmbedder(64)) as a:
            print(a.repo.scalar("SELECT dolt_version()"))
            print(a.store("stored by a child process").commit)
    """)
    assert child.returncode == 0, child.stderr
    version, commit = child.stdout.split()
    assert version == agent.repo.scalar("SELECT dolt_version()") and commit == agent.repo.head(agent.branch)
    assert agent.repo.count("memories") == 2


def test_subprocess_child_with_the_marker_gets_plain_sqlite(agent):
    child = run_child(f"""
        import doltlite, sqlite3
        sqlite3.connect({str(agent.folder / 'memory.db')!r}).execute("SELECT dolt_version()")
    """, env={BOOTSTRAP_MARKER: "1"})
    assert child.returncode == 1 and "no such function: dolt_version" in child.stderr


WRITER = """
    import sys
    from collective.agent import Agent
    home, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Agent.open("earth-1", home=home) as agent:
        agent.embedder.embed(["warm up"])
    for i in range(n):
        with Agent.open("earth-1", home=home) as agent:  # reopening adds contention on open and migrate
            agent.store(f"{name} observed event number {i} at the north airlock")
    print("done")
"""

READER = """
    import sys
    from collective.agent import Agent
    home, n = sys.argv[1], int(sys.argv[2])
    for i in range(n):
        with Agent.open("earth-1", home=home) as agent:
            agent.recall("north airlock event", k=3)
    print("done")
"""


def test_two_writers_and_a_reader_never_lock_and_lose_nothing(home, real_embedder):
    with Agent.init("earth-1", home=home) as agent:
        commits_before = len(agent.repo.log(agent.branch))
    n = 12
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(WRITER), str(home), name, str(n)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("alpha", "beta")]
    procs.append(subprocess.Popen([sys.executable, "-c", textwrap.dedent(READER), str(home), str(n)],
                                  cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert "locked" not in err.lower()
        assert p.returncode == 0 and out.strip() == "done", err
    with Agent.open("earth-1", home=home) as agent:
        contents = {r["content"] for r in agent.repo.select("memories", columns=("content",))}
        expected = {f"{name} observed event number {i} at the north airlock"
                    for name in ("alpha", "beta") for i in range(n)}
        assert contents == expected
        log = agent.repo.log(agent.branch)
        assert len(log) == commits_before + 2 * n
        assert all(c.author == "earth-1" for c in log[: 2 * n])
        assert agent.repo.query("SELECT * FROM dolt_status") == []
        assert len(agent.recall("north airlock event", k=2 * n)) == 2 * n  # the index caught up with both


STORE_AND_RECALL = """
    import sys
    from collective.agent import Agent
    from collective.embedders import HashEmbedder
    home, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    embedder = HashEmbedder(384)
    wrong = 0
    for i in range(n):
        with Agent.open("earth-1", home=home, embedder=embedder) as agent:
            words = f"zebra{i}{name} yak{i}{name} quokka{i}{name}"
            stored = agent.store(words).memory.id
            wrong += agent.recall(words, k=1)[0].memory.id != stored  # updates and saves the index
    print("wrong", wrong)
"""


def test_processes_updating_one_index_never_mix_its_files(home):
    """Each recall after a store updates the index files; processes must never load a mix of
    two saves (that showed as 'The requested to delete element is already deleted')."""
    Agent.init("earth-1", home=home, embedder=HashEmbedder(384)).close()
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(STORE_AND_RECALL), str(home), name, "25"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("a", "b", "c")]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and out.strip() == "wrong 0", err
    with Agent.open("earth-1", home=home, embedder=HashEmbedder(384)) as agent:
        index = agent.index()
        assert len(index) == agent.repo.count("memories") == 75
        for row in agent.repo.select("memories", columns=("id", "vector")):
            assert index.search(np.frombuffer(row["vector"], dtype="<f4"), 1)[0][0] == row["id"]
