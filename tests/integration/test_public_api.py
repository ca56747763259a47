"""`import collective` is all a user needs: sqlite3 speaks Dolt, in this process
and in the processes it starts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap


def run(code: str, **env) -> subprocess.CompletedProcess:
    import os
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_open_agent_alone_stores_and_recalls(tmp_path):
    done = run("""
        import json
        from collective import open_agent
        with open_agent("earth-1", home=%r, create=True) as agent:
            agent.store("The coolant pump in module C is safe to operate")
            agent.store("Rover 5 battery was replaced on Tuesday")
            hits = agent.recall("is the pump safe?", k=1)
            print(json.dumps([h.memory.content for h in hits]))
    """ % str(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == ["The coolant pump in module C is safe to operate"]


def test_children_of_a_process_that_imported_collective_speak_dolt(tmp_path):
    # The bootstrap marks the environment; a child that inherits the mark must still
    # bootstrap (FIELD-NOTES: children otherwise get plain SQLite).
    done = run("""
        import subprocess, sys
        import collective
        code = "import collective, sqlite3; print(sqlite3.connect(':memory:').execute('select dolt_version()').fetchone()[0])"
        print(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_open_agent_names_a_missing_agent(tmp_path):
    done = run("""
        from collective import NotFound, open_agent
        try:
            open_agent("nobody", home=%r)
        except NotFound as e:
            print(e.field)
    """ % str(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "agent"


def test_open_agent_creates_an_agent_with_the_judge_it_is_given(tmp_path):
    done = run("""
        from collective import open_agent
        from collective.judge import CallbackJudge
        judge = CallbackJudge(lambda a, b, similarity: ("destructive", 0.9, "told so"), floor=0.0)
        with open_agent("earth-1", home=%r, create=True, judge=judge) as agent:
            print(agent.judge is judge, agent.compare("The hatch is sealed.", "The door is blue.")["reason"])
    """ % str(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "True told so"
