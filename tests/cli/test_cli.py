"""The `cmem` CLI with the real default embedder: JSON shapes, configuration, bad input."""

from __future__ import annotations

import io
import json
import math
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from collective.cli import cli
from collective.config import Home
from collective.embedders import default_embedder
from collective.store import Location

# The storage behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")

MEMORY_KEYS = {"id", "content", "summary", "category", "tags", "amplitude", "phase", "stance", "origin_agent",
               "model_version", "layer", "disputed", "hallucinated", "retracted", "absorbed_into", "parents",
               "merge_history", "created_at", "updated_at", "refuted_by", "valid_until"}
HIT_KEYS = {"id", "score", "similarity", "strength", "access_count", "disputed", "summary", "content", "category",
            "origin_agent", "amplitude", "created_at", "refuted_by", "valid_until", "relevance", "lexical", "context",
            "resonance", "tags", "why"}
CMEM = Path(sys.executable).with_name("cmem")


def cmem(*args: str, env: dict | None = None, ok: bool = True):
    result = CliRunner().invoke(cli, list(args), env=env)
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


def cmem_json(*args: str, env: dict | None = None):
    result = cmem(*args, "--json", env=env)
    assert result.stdout.count("\n") == 1  # one JSON document on one line
    return json.loads(result.stdout)


def db_state(home: Path, agent_id: str = "earth-1") -> tuple[str, int, int]:
    """(working head, memory rows, commits) read straight from the file."""
    repo = open_repo(home, agent_id)
    try:
        branch = f"{agent_id}/working"
        repo.checkout(branch)
        return (repo.head(branch), repo.count("memories"), len(repo.log(branch)))
    finally:
        repo.close()


def open_repo(home: Path, agent_id: str = "earth-1"):
    """The agent's database on whichever engine it lives, opened directly."""
    root = home.resolve()
    return Location.find(root / "agents" / agent_id, root).open()


@pytest.fixture
def cli_home(home):
    cmem_json("init", "--agent", "earth-1", "--home", str(home))
    return home


@pytest.fixture
def stored(cli_home, real_embedder):
    """A home whose agent holds two memories stored through the CLI."""
    h = str(cli_home)
    first = cmem_json("store", "the coolant pump is safe", "--home", h, "--tag", "pump")
    second = cmem_json("store", "the greenhouse lights run on a timer", "--home", h, "-c", "experience")
    return cli_home, first, second


# --- init ---------------------------------------------------------------------------------
def test_init_json_and_files(home, engine):
    out = cmem_json("init", "--agent", "earth-1", "--home", str(home))
    assert set(out) == {"agent", "home", "engine", "branch", "head", "public_key", "database", "server", "roster"}
    assert (out["server"] is None) == (engine == "doltlite")  # one shape on every engine
    assert out["agent"] == "earth-1" and out["branch"] == "earth-1/working" and out["engine"] == engine
    if engine == "doltlite":
        assert out["database"] == str(home / "agents/earth-1/memory.db")
    assert out["home"] == str(home.resolve())
    assert (home / "agents/earth-1/ed25519.pem").stat().st_mode & 0o777 == 0o600
    repo = open_repo(home)
    try:
        assert set(repo.branches()) == {"main", "earth-1/working"}
        assert repo.head("earth-1/working") == out["head"]
        assert repo.select("agents", {"agent_id": "earth-1"})[0]["public_key"] == out["public_key"]
    finally:
        repo.close()


def test_init_again_fails_unless_exist_ok(cli_home):
    h = str(cli_home)
    key = (cli_home / "agents/earth-1/ed25519.pem").read_bytes()
    before = db_state(cli_home)
    again = cmem("init", "--agent", "earth-1", "--home", h, ok=False)
    assert again.exit_code == 2 and again.stdout == ""
    assert again.stderr.strip() == f"Error: agent: earth-1 is already initialised in {cli_home.resolve()} (use --exist-ok)"
    ok = cmem_json("init", "--agent", "earth-1", "--home", h, "--exist-ok")
    assert ok["head"] == before[0]
    assert db_state(cli_home) == before and (cli_home / "agents/earth-1/ed25519.pem").read_bytes() == key


def test_a_failed_init_leaves_no_folder_behind(home):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: nothing answers there
    port = closed.getsockname()[1]
    try:
        for where in (home, home / "made-by-init"):
            result = cmem("init", "--agent", "earth-1", "--home", str(where), "--backend", "dolt",
                          env={"CMEM_DOLT_SERVER": f"mysql://root:pw@127.0.0.1:{port}"}, ok=False)
            assert result.exit_code == 1 and result.stdout == ""
            assert result.stderr.splitlines() == [result.stderr.strip()] and "127.0.0.1" in result.stderr
    finally:
        closed.close()
    assert list(home.iterdir()) == []  # no agent folder, nor the home init would have made


# --- configuration precedence --------------------------------------------------------------------
def test_home_and_agent_precedence(home, tmp_path, real_embedder):
    cmem("init", "--agent", "earth-1", "--home", str(home))
    cmem("init", "--agent", "mars-1", "--home", str(home))
    assert Home.at(home).config == {"agent": "earth-1"}  # the first agent became the default
    env = {"CMEM_HOME": str(home)}
    assert cmem_json("store", "from cmem.toml", env=env)["origin_agent"] == "earth-1"
    assert cmem_json("store", "from the environment", env={**env, "CMEM_AGENT": "mars-1"})["origin_agent"] == "mars-1"
    assert cmem_json("store", "from the option", "--agent", "earth-1",
                     env={**env, "CMEM_AGENT": "mars-1"})["origin_agent"] == "earth-1"
    assert db_state(home, "earth-1")[1] == 2 and db_state(home, "mars-1")[1] == 1

    other = tmp_path / "other"
    result = cmem("store", "x", "--home", str(other), env=env, ok=False)  # --home beats CMEM_HOME
    assert result.exit_code == 2
    assert result.stderr.strip() == f"Error: agent: no agent in {other.resolve()}; run `cmem init --agent ID`"

    (home / "cmem.toml").write_text('[recall]\nfade_threshold = 0.01\n')
    result = cmem("status", env=env, ok=False)
    assert result.exit_code == 2 and "several agents" in result.stderr and "--agent" in result.stderr
    (home / "cmem.toml").write_text('agent = "mars-1"\n[recall]\nfade_threshold = 0.01\n')
    assert cmem_json("status", env=env)["agent"] == "mars-1"
    (home / "cmem.toml").write_text('agent = "mars-1"\n[recall]\nfade_treshold = 0.01\n')
    result = cmem("status", env=env, ok=False)
    assert result.exit_code == 2 and result.stderr.strip() == "Error: cmem.toml: [recall] has unknown setting(s) fade_treshold"


BROKEN_TOML = [
    (b'[recall]\nmin_score = nan\n', "[recall] min_score must be a finite number, got nan"),
    (b'[recall]\nmin_score = 1.5\n', "[recall] min_score must be from 0 to 1, got 1.5"),
    (b'[merge]\namplitude_cap = -inf\n', "[merge] amplitude_cap must be a finite number, got -inf"),
    (b'[recall]\nfade_threshold = "low"\n', "[recall] fade_threshold must be a finite number, got 'low'"),
    (b'[storage]\ngc_every = 2.5\n', "[storage] gc_every must be a whole number, got 2.5"),
    (b'[recall]\nmin_score = 1' + b'0' * 400 + b'\n', "[recall] min_score must be a finite number, got 1000"),
    (b'recall = 3\n', "[recall] must be a table, got 3"),
    (b'[trust]\nhalf_lives = {knowledge = 0}\n', "[trust] half_lives.knowledge must be more than 0 days"),
    (b'[dream]\nlayer_days = [1.0, inf]\n', "[dream] layer_days must be a finite number, got inf"),
    (b'collective = 7\n', "collective must be text, got 7"),
    (b'# caf\xe9\n', "cmem.toml is not valid UTF-8 (byte 0xe9 at position 5)"),
    (b'[storage]\ngc_every = 1' + b'0' * 5000 + b'\n', "cmem.toml: Exceeds the limit (4300 digits)"),
    (None, "cmem.toml: Is a directory"),
]


@pytest.mark.parametrize("toml, problem", BROKEN_TOML, ids=[p.split(" must")[0][:30] for _, p in BROKEN_TOML])
def test_a_cmem_toml_that_cannot_be_used_is_one_line_naming_the_setting(stored, toml, problem):
    home = stored[0]
    config = home / "cmem.toml"
    config.unlink()
    if toml is None:
        config.mkdir()
    else:
        config.write_bytes(toml)
    before = db_state(home)
    files = sorted(p.relative_to(home) for p in home.rglob("*"))
    commands = [["dream"]] if "[dream]" in problem else [["recall", "the coolant pump"], ["status"], ["dream"]]
    for command in commands:
        result = cmem(*command, "--home", str(home), "--agent", "earth-1", ok=False)
        assert result.exit_code == 2 and result.stdout == "", (command, result.output)
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: cmem.toml: ") and problem in lines[0], lines
    assert db_state(home) == before and sorted(p.relative_to(home) for p in home.rglob("*")) == files


def test_a_tokenizer_variable_naming_no_tokenizer_is_one_line_naming_it(stored, tmp_path):
    home = stored[0]
    (tmp_path / "words.json").write_text('{"not": "a tokenizer"}')
    (tmp_path / "latin1.json").write_bytes(b"caf\xe9")
    before = db_state(home)
    try:
        for target in (tmp_path / "words.json", tmp_path / "latin1.json", tmp_path, tmp_path / "absent.json"):
            default_embedder.cache_clear()  # each `cmem` process loads it once; here it is one process
            result = cmem("store", "the hatch is sealed", "--home", str(home), env={"CMEM_TOKENIZER": str(target)},
                          ok=False)
            assert result.exit_code == 2 and result.stdout == "", result.output
            lines = result.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"Error: CMEM_TOKENIZER: {target} "), lines
    finally:
        default_embedder.cache_clear()
    assert db_state(home) == before


def test_settings_precedence(home, monkeypatch):
    (home / "cmem.toml").write_text('agent = "earth-1"\nremote = "file:///toml.db"\n[merge]\namplitude_cap = 3.0\n')
    h = Home.at(home)
    assert h.settings.amplitude_cap == 3.0 and h.settings.fade_threshold == 0.05
    assert h.setting("remote") == "file:///toml.db" and h.setting("nats_url") is None
    assert h.resolve_agent() == "earth-1" and h.resolve_agent("mars-1") == "mars-1"
    monkeypatch.setenv("CMEM_REMOTE", "file:///env.db")
    monkeypatch.setenv("CMEM_AGENT", "venus-2")
    monkeypatch.setenv("CMEM_HOME", str(home / "elsewhere"))
    assert h.setting("remote") == "file:///env.db"
    assert h.resolve_agent() == "venus-2" and h.resolve_agent("mars-1") == "mars-1"
    assert Home.at().root == (home / "elsewhere").resolve() and Home.at(home).root == home.resolve()


# --- the commands and their JSON ----------------------------------------------------------------
def test_store_json_and_dolt_log(stored):
    home, first, second = stored
    assert set(first) == MEMORY_KEYS | {"deduplicated", "commit", "supersedes", "contradicts"}
    assert first["content"] == "the coolant pump is safe" and first["tags"] == ["pump"]
    assert first["category"] == "knowledge" and second["category"] == "experience"
    assert first["model_version"] == "all-MiniLM-L6-v2-onnx-int8" and first["deduplicated"] is False
    head, rows, _ = db_state(home)
    assert second["commit"] == head and rows == 2
    log = cmem_json("log", "-n", "2", "--home", str(home))
    assert [set(c) for c in log] == [{"commit", "author", "email", "date", "message"}] * 2
    assert [c["author"] for c in log] == ["earth-1", "earth-1"]
    assert [c["commit"] for c in log] == [second["commit"], first["commit"]]
    assert log[1]["message"] == f"store {first['id']}: the coolant pump is safe"


def test_dedup_through_the_cli(stored):
    home, first, _ = stored
    before = db_state(home)
    again = cmem_json("store", "The coolant pump is safe", "--home", str(home))
    assert again["id"] == first["id"] and again["deduplicated"] is True
    assert again["amplitude"] == pytest.approx(1.0) and first["amplitude"] == 0.5
    after = db_state(home)
    assert after[1] == before[1] and after[2] == before[2] + 1 and after[0] == again["commit"]
    text = cmem("store", "the coolant pump is safe", "--home", str(home)).stdout
    assert text.startswith(f"reinforced {first['id']} (amplitude 1.50")


def test_recall_show_forget_status_json(stored):
    home, first, second = stored
    h = str(home)
    before = db_state(home)
    recalled = cmem_json("recall", "is the coolant pump safe?", "-k", "2", "--home", h)
    assert set(recalled) == {"hits", "min_score", "closest"} and recalled["closest"] is None
    hits = recalled["hits"]
    assert [set(x) for x in hits] == [HIT_KEYS]  # the greenhouse lights are not about the pump: not relevant
    assert hits[0]["id"] == first["id"] and hits[0]["similarity"] > 0.4
    assert hits[0]["access_count"] == 0
    assert db_state(home) == before  # recall never commits

    shown = cmem_json("show", first["id"], "--home", h)
    assert set(shown) == MEMORY_KEYS | {"links", "access_count", "dispute"}
    assert shown["access_count"] == 1 and shown["links"] == []

    status = cmem_json("status", "--home", h)
    assert set(status) - {"server"} == {"agent", "home", "engine", "database", "branch", "head", "schema_version",
                           "counts", "stability", "index", "remotes", "events"}
    assert 0 < status["stability"] <= 1
    assert status["head"] == before[0] and status["counts"]["memories"] == 2
    assert status["events"] == {"outbox": 2, "last_publish": None}  # two stores, nothing published
    assert status["index"] == {"built": True, "head": before[0], "count": 2, "current": True}

    forgotten = cmem_json("forget", first["id"], "--home", h)
    assert set(forgotten) == {"id", "retracted", "changed", "commit"}
    assert forgotten["changed"] is True and forgotten["commit"] == db_state(home)[0] != before[0]
    nothing = cmem_json("recall", "coolant pump", "--home", h)
    assert nothing["hits"] == [] and nothing["closest"]["id"] == second["id"]  # what came closest is named
    said = cmem("recall", "coolant pump", "--home", h).stdout
    assert said.startswith("nothing recalled at relevance 0.15 or more; closest: ") and second["id"] in said
    old = cmem_json("recall", "coolant pump", "--as-of", before[0], "--home", h)["hits"]
    assert first["id"] in [x["id"] for x in old]
    assert cmem_json("forget", first["id"], "--home", h)["changed"] is False
    assert cmem("recall", "greenhouse lights", "--home", h).stdout.startswith(" 1. ")


def test_index_prepares_the_index_and_the_judges_analyses_ahead_of_a_sync(stored):
    home, first, second = stored
    h = str(home)
    before = db_state(home)
    assert cmem_json("index", "--home", h) == {"index": "rebuilt", "count": 2, "analysed": 2}
    assert cmem_json("index", "--home", h) == {"index": "current", "count": 2, "analysed": 0}
    cmem_json("store", "the airlock seal was replaced on Sunday", "--home", h)
    assert cmem_json("index", "--home", h) == {"index": "updated", "count": 3, "analysed": 1}
    assert cmem("index", "--home", h).stdout == "index current: 3 memories, 0 texts analysed\n"
    assert db_state(home)[1:] == (3, before[2] + 1)  # only the store committed
    repo = open_repo(home)
    try:
        repo.checkout("earth-1/working")
        assert repo.count("local_analyses") == 3
    finally:
        repo.close()


def test_as_of_branch_and_timestamp_through_the_cli(stored):
    home, first, second = stored
    h = str(home)
    time.sleep(1.1)  # dolt_log dates have whole seconds
    moment = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    time.sleep(1.1)
    third = cmem_json("store", "the coolant pump was replaced yesterday", "--home", h)
    now = {x["id"] for x in cmem_json("recall", "coolant pump", "-k", "5", "--home", h)["hits"]}
    assert now == {first["id"], third["id"]}  # the greenhouse lights are not relevant enough
    then = {x["id"] for x in cmem_json("recall", "coolant pump", "-k", "5", "--as-of", moment, "--home", h)["hits"]}
    assert then == {first["id"]}
    assert cmem_json("recall", "coolant pump", "--as-of", "main", "--home", h) == {
        "hits": [], "min_score": 0.15, "closest": None}


def test_a_keyword_and_a_question_in_other_words_are_recalled_and_list_pages(cli_home, real_embedder):
    """`cmem recall pump` finds the pump (cosine 0.32: below any fixed cosine floor), the
    dark-mode memory answers a question about themes (cosine 0.37), and a question about
    nothing stored names what came closest."""
    h = str(cli_home)
    pump = cmem_json("store", "The coolant pump in module C is safe to operate", "--tag", "hardware", "--home", h)
    dark = cmem_json("store", "The user prefers dark mode in every editor", "-c", "social", "--home", h)
    cmem_json("store", "Lunch is served at noon in the galley", "--home", h)
    assert [x["id"] for x in cmem_json("recall", "pump", "--home", h)["hits"]] == [pump["id"]]
    said = cmem("recall", "pump", "--home", h).stdout
    assert said.startswith(" 1. ") and pump["id"] in said and said.count("\n") == 1
    theme = cmem_json("recall", "what theme does the user like?", "--home", h)["hits"]
    assert theme[0]["id"] == dark["id"] and theme[0]["similarity"] < 0.4
    nothing = cmem("recall", "what is the capital of France?", "--home", h).stdout
    assert nothing.startswith("nothing recalled at relevance 0.15 or more; closest: ")
    assert cmem_json("recall", "pump", "--category", "social", "--home", h)["hits"] == []
    assert [x["id"] for x in cmem_json("recall", "pump", "--tag", "hardware", "--home", h)["hits"]] == [pump["id"]]
    page = cmem_json("list", "--limit", "2", "--home", h)
    assert page["total"] == 3 and len(page["memories"]) == 2
    assert cmem("list", "--limit", "2", "--offset", "2", "--home", h).stdout.endswith("3-3 of 3\n")
    bad = cmem("recall", "pump", "--category", "gossip", "--home", h, ok=False)
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "category" in bad.stderr


def test_phases_of_negation_and_paraphrase(cli_home, real_embedder):
    h = str(cli_home)
    safe = cmem_json("store", "the coolant pump is safe", "--home", h)
    unsafe = cmem_json("store", "the coolant pump is not safe", "--home", h)
    no_danger = cmem_json("store", "the coolant pump poses no danger", "--home", h)
    to_operate = cmem_json("store", "the coolant pump is safe to operate", "--home", h)
    assert safe["phase"] == 0.0 and unsafe["phase"] == pytest.approx(math.pi, abs=1e-6)
    assert no_danger["phase"] == 0.0 and to_operate["phase"] == 0.0
    # the embedding alone cannot tell them apart: that is why the phase exists
    v = real_embedder.embed(["the coolant pump is safe", "the coolant pump is not safe"])
    assert float(np.dot(v[0], v[1])) > 0.9
    explicit = cmem_json("store", "the coolant pump is safe", "--stance", "deny", "--home", h)
    assert explicit["phase"] == pytest.approx(math.pi, abs=1e-6) and explicit["deduplicated"] is False
    assert cmem_json("store", "pump pressure nominal", "--phase", "-0.5", "--home", h)["phase"] == \
        pytest.approx(2 * math.pi - 0.5, abs=1e-6)


# --- bad input: exit 2, one line naming the field, nothing written -----------------------------------
BAD_INPUT = [
    (["store", ""], "content"),
    (["store", "   \n\t "], "content"),
    (["store", "x" * (32 * 1024 + 1)], "content"),
    (["store", "x", "--category", "gossip"], "category"),
    (["store", "x", "--importance", "0"], "importance"),
    (["store", "x", "--importance", "1.5"], "importance"),
    (["store", "x", "--importance", "-1"], "importance"),
    (["store", "x", "--importance", "abc"], "importance"),
    (["store", "x", "--phase", "nan"], "phase"),
    (["store", "x", "--phase", "inf"], "phase"),
    (["store", "x", "--phase", "abc"], "phase"),
    (["store", "x", "--phase", "1", "--stance", "deny"], "phase"),
    (["store", "x", "--stance", "maybe"], "stance"),
    (["store", "x", "--tag", ""], "tag"),
    (["store", "x", "--agent", "Earth One"], "agent"),
    (["store", "x", "--agent", "mars-9"], "agent"),
    (["recall", "x", "--agent", "-bad"], "agent"),
    (["show", "01a00000-0000-7000-8000-000000000000"], "memory"),
    (["forget", "01a00000-0000-7000-8000-000000000000"], "memory"),
    (["forget", "not-an-id"], "memory"),
    (["recall", "x", "--as-of", "no-such-branch"], "as-of"),
    (["recall", "x", "--as-of", "0123456789abcdef0123456789abcdef"], "as-of"),
    (["recall", "x", "--as-of", "1999-01-01T00:00:00Z"], "as-of"),
    (["recall", ""], "query"),
    (["recall", "x", "-k", "0"], "k"),
    (["log", "-n", "0"], "n"),
    (["init"], "agent"),
    (["init", "--agent", "Mars_1!"], "agent"),
    # text that is not UTF-8 (a lone surrogate, as Python decodes such argv bytes) or holds NUL
    (["store", "bad \udcff byte"], "content"),
    (["store", "nul \x00 char"], "content"),
    (["store", "x", "--tag", "\udcff"], "tag"),
    (["recall", "\udcff"], "query"),
    (["show", "\udcff"], "memory_id"),
    (["forget", "id\x00"], "memory_id"),
    (["trust", "mars-\udcff"], "peer"),
    (["quarantine", "show", "\udcff"], "dispute_id"),
    (["store", "x", "--agent", "\udcff"], "agent"),
    (["log", "-n", "1e20"], "n"),
    (["log", "-n", "100000000000000000000"], "n"),
    (["recall", "x", "-k", "99999999999"], "k"),
]


@pytest.mark.parametrize("args, field", BAD_INPUT, ids=[ascii(" ".join(a))[1:41] for a, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(stored, args, field):
    home = stored[0]
    before = db_state(home)
    files = sorted(p.relative_to(home) for p in home.rglob("*") if not p.name.startswith("index"))
    result = cmem(*args, "--home", str(home), ok=False)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {field}: "), result.stderr
    assert db_state(home) == before
    assert sorted(p.relative_to(home) for p in home.rglob("*") if not p.name.startswith("index")) == files


def test_forget_of_a_peers_memory_is_refused(stored):
    from collective.agent import Agent
    from collective.model import Memory, content_hash, iso, utcnow, uuid7
    home = stored[0]
    with Agent.open("earth-1", home=home) as agent:
        vector = agent.embedder.embed(["dust storm on sol 200"])[0]
        now = iso(utcnow())
        m = Memory(id=uuid7(), content="dust storm on sol 200", summary="dust storm on sol 200", vector=vector,
                   dim=384, model_version=agent.embedder.model_version, content_hash=content_hash("dust"),
                   amplitude=0.5, phase=0.0, category="knowledge", origin_agent="mars-1", created_at=now,
                   updated_at=now, signature="peer")
        with agent.repo.transaction():
            agent.repo.insert("memories", [m.to_row()])
            agent.repo.commit("pull mars-1", author="earth-1")
    before = db_state(home)
    result = cmem("forget", m.id, "--home", str(home), ok=False)
    assert result.exit_code == 2
    assert result.stderr.strip() == f"Error: memory: {m.id} belongs to mars-1; only its origin can retract it"
    assert db_state(home) == before


def test_the_console_script_in_a_subprocess(cli_home):
    env = {**os.environ, "CMEM_HOME": str(cli_home)}
    done = subprocess.run([str(CMEM), "store", "the airlock seal was replaced", "--json"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["origin_agent"] == "earth-1" and db_state(cli_home)[0] == out["commit"]
    bad = subprocess.run([str(CMEM), "store", "x", "--importance", "2"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "Error: importance: must be in (0, 1], got 2.0\n"
    assert db_state(cli_home)[0] == out["commit"]


# --- the contract every command keeps: exit codes, one line, nothing written ---------------------
def log_json(home: Path) -> list[dict]:
    return cmem_json("log", "-n", "1000", "--home", str(home))


@pytest.fixture
def with_commons(stored, tmp_path, engine):
    """The stored home's agent, with a file commons named origin that it has pushed to."""
    home = stored[0]
    folder = tmp_path / "commons"
    folder.mkdir()
    url = f"file://{folder}" if engine == "dolt" else f"file://{folder / 'commons.db'}"  # Dolt: a remote folder
    cmem_json("remote", "add", "origin", url, "--home", str(home))
    cmem_json("push", "--home", str(home))
    return home


CONTRACT_BAD_INPUT = [
    (["store", ""], "content"),
    (["recall", "x", "-k", "0"], "k"),
    (["show", "not-an-id"], "memory"),
    (["quarantine", "resolve", "0123abcd", "--keep", "x", "--note", "n"], "keep"),
    (["quarantine", "list", "--status", "shut"], "status"),
    (["quarantine", "show", "0123abcd"], "dispute"),
    (["pull", "--from", "unknown-peer"], "peer"),
    (["pull", "nope"], "remote"),
    (["push", "nope"], "remote"),
    (["remote", "add", "x", "ftp://example.org/c.db"], "url"),
    (["remote", "add", "origin", "file:///tmp/c.db"], "name"),
    (["trust", "unknown-peer"], "agent"),
]


@pytest.mark.parametrize("args, field", CONTRACT_BAD_INPUT, ids=[" ".join(a)[:40] for a, _ in CONTRACT_BAD_INPUT])
def test_bad_input_names_the_field_in_one_line_and_leaves_the_log_alone(with_commons, args, field):
    home = with_commons
    log, remotes = log_json(home), cmem_json("remote", "list", "--home", str(home))
    result = cmem(*args, "--home", str(home), ok=False)
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {field}: "), result.stderr
    assert log_json(home) == log and cmem_json("remote", "list", "--home", str(home)) == remotes


def test_an_operational_failure_exits_1_in_one_line_and_leaves_the_log_alone(with_commons, tmp_path):
    home = with_commons
    cmem_json("remote", "add", "gone", f"file://{tmp_path / 'nowhere.db'}", "--home", str(home))
    log = log_json(home)
    result = cmem("pull", "gone", "--home", str(home), ok=False)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith("Error: remote 'gone' is unreachable")
    assert log_json(home) == log


def test_pull_from_an_unknown_peer_is_refused_before_fetching(with_commons, tmp_path):
    home = with_commons
    url = cmem_json("remote", "list", "--home", str(home))["origin"]
    cmem_json("init", "--agent", "mars-1", "--home", str(home))
    cmem_json("remote", "add", "origin", url, "--home", str(home), "--agent", "mars-1")
    cmem_json("push", "--home", str(home), "--agent", "mars-1")  # earth-1 has not fetched it yet
    repo = open_repo(home)
    try:
        fetched = repo.remote_branches()
    finally:
        repo.close()
    assert "origin/mars-1/working" not in fetched
    for peers, line in ((["nobody"], "Error: peer: no branch nobody/working on remote 'origin'"),
                        (["earth-1"], "Error: peer: earth-1 is this agent; a pull takes its peers' memories"),
                        (["mars-1", "Mars 1"], "Error: peer: 'Mars 1' is not a valid agent id")):
        args = [arg for peer in peers for arg in ("--from", peer)]
        result = cmem("pull", *args, "--home", str(home), "--agent", "earth-1", ok=False)
        assert result.exit_code == 2 and result.stdout == "" and result.stderr.startswith(line), result.output
        assert len(result.stderr.splitlines()) == 1
    repo = open_repo(home)
    try:
        assert repo.remote_branches() == fetched  # nothing fetched: no network or disk work before the check
    finally:
        repo.close()


def test_index_and_pull_print_their_result_and_no_progress_off_a_terminal(with_commons):
    h = str(with_commons)
    for args in (["index"], ["pull", "--dry-run"], ["pull"]):
        result = cmem(*args, "--json", "--home", h)
        assert result.stdout.count("\n") == 1 and isinstance(json.loads(result.stdout), dict)
        assert result.stderr == ""
        assert cmem(*args, "--home", h).stderr == ""  # CliRunner's stderr is no terminal


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_index_draws_a_bar_per_stage_on_a_terminal_unless_json(stored, monkeypatch, capsys, as_json):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    cli.main(["index", "--home", str(stored[0]), *(["--json"] if as_json else [])], prog_name="cmem",
             standalone_mode=False)
    out = capsys.readouterr().out
    if as_json:
        assert terminal.getvalue() == "" and json.loads(out)["index"] == "rebuilt"
    else:
        assert "index: 100%" in terminal.getvalue() and "analyse: 100%" in terminal.getvalue()
        assert out == "index rebuilt: 2 memories, 2 texts analysed\n"


def test_init_prints_next_steps_that_run_as_printed(home):
    done = cmem("init", "--agent", "venus-1", "--home", str(home))
    lines = done.stdout.splitlines()
    steps = [shlex.split(line.split("#")[0]) for line in lines[lines.index("next:") + 1:]]
    assert [s[:2] for s in steps] == [["cmem", "store"], ["cmem", "recall"], ["cmem", "remote"]]
    for step in steps[:2]:  # the remote needs a real path: its form is checked by `remote add`'s own tests
        cmem(*step[1:], "--home", str(home))
    assert "what it learned" in cmem("recall", "what it learned", "--agent", "venus-1", "--home", str(home)).stdout
