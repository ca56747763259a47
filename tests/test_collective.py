"""Three agents meeting through a commons, end to end, with the real embedder.

earth-1 and earth-2 agree that the coolant pump is safe, mars-1 says it is not,
and mars-1 is only half sure about the dust storm earth-1 reported. Each story
runs once through a file commons and once through the HTTP commons.
"""

from __future__ import annotations

import json
import math
import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from collective import exchange, quarantine
from collective.core import wave
from collective.agent import Agent
from collective.cli import cli
from collective.identity import verify
from collective.model import Memory, content_hash, iso, utcnow, uuid7
from collective.store.commons_server import CommonsServer
from collective.store.dolt_process import ManagedDoltServer
from collective.store.doltserver import ServerAddress, create_database

PUMP = "The coolant pump in module B is safe to operate"
PUMP_TOO = "Module B's coolant pump is safe to operate"
NOT_PUMP = "The coolant pump in module B is not safe to operate"
STORM = "The dust storm will reach the landing site on Friday"
TOMATOES = "The greenhouse tomatoes are ripe"
ASK_PUMP = "Is the coolant pump in module B safe?"
NAMES = ("earth-1", "earth-2", "mars-1")


# --- fixtures -----------------------------------------------------------------------
# The collective behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture(params=["file", "http"])
def commons_url(request, tmp_path, engine):
    folder = tmp_path / "commons"
    folder.mkdir()
    if engine == "dolt":  # a Dolt commons: a remote folder, or another sql-server's remotesapi
        if request.param == "file":
            yield f"file://{folder}"
            return
        host = ManagedDoltServer(tmp_path / "commons-server", remotesapi=True)
        try:
            create_database(ServerAddress("127.0.0.1", host.ensure_running(), "root", "", "commons"))
            yield f"http://127.0.0.1:{host.remotesapi_port()}/commons"
        finally:
            host.stop()
        return
    if request.param == "file":
        yield f"file://{folder / 'commons.db'}"
        return
    server = CommonsServer(folder, bind="127.0.0.1", port=0).start()
    try:
        yield server.url_for("commons.db")
    finally:
        server.stop()


@pytest.fixture
def trio(home, commons_url, real_embedder):
    agents = {name: Agent.init(name, home=home, embedder=real_embedder) for name in NAMES}
    for agent in agents.values():
        agent.add_remote("origin", commons_url)
    yield agents
    for agent in agents.values():
        agent.close()


def cmem(home: Path, *args: str):
    return CliRunner().invoke(cli, [*args, "--home", str(home)])


def peer_report(result: dict, peer: str) -> dict:
    (report,) = [p for p in result["peers"] if p["peer"] == peer]
    return report


def row(agent: Agent, memory_id: str) -> Memory:
    return agent.get(memory_id)


def links(agent: Agent, source: str, target: str, kind: str) -> list[dict]:
    return agent.repo.select("skip_links", {"source_id": source, "target_id": target, "link_type": kind})


def open_cases(agent: Agent) -> list[dict]:
    return sorted((quarantine.normalise({k: v for k, v in c.items() if k != "resolution"})
                   for c in agent.cases() if c["status"] != "resolved"), key=lambda c: c["id"])


def state(agent: Agent) -> dict:
    """What 'nothing written' compares: every branch head and a clean working set."""
    return {"branches": agent.repo.branches(), "status": agent.repo.query("SELECT * FROM dolt_status")}


def sync_round(agents: dict[str, Agent]) -> None:
    for agent in agents.values():
        agent.pull()
        agent.push()


# --- the story ------------------------------------------------------------------------
def test_agreement_contradiction_partial_and_resolution(trio, home):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    storm = e1.store(STORM).memory
    pump_too = e2.store(PUMP_TOO).memory
    tomatoes = e2.store(TOMATOES).memory
    not_pump = m1.store(NOT_PUMP).memory
    stored = cmem(home, "store", STORM, "--stance", "uncertain", "--agent", "mars-1", "--json")
    assert stored.exit_code == 0, stored.output
    storm_m = row(m1, json.loads(stored.stdout)["id"])
    assert storm_m.phase == pytest.approx(math.pi / 2) and storm.phase == 0.0
    for agent in trio.values():
        agent.push()

    # recall before: earth-1 knows only its own mind
    before = e1.recall(ASK_PUMP, k=5)
    assert before[0].memory.id == pump.id and {h.memory.origin_agent for h in before} == {"earth-1"}
    amplitude_before = row(e1, pump.id).amplitude

    # an agreement merges: absorbed copy, consensus link, merge history, amplitude up
    result = e1.pull(peers=["earth-2"])
    report = peer_report(result, "earth-2")
    assert report["status"] == "merged" and report["refused"] == {}
    assert report["summary"]["constructive"] == 1 and report["summary"]["independent"] == 1
    assert set(report["seconds"]) == {"fetch", "diff", "verify", "classify", "apply"}
    copy = row(e1, pump_too.id)
    assert copy.absorbed_into == pump.id and not copy.disputed
    assert links(e1, pump_too.id, pump.id, "consensus")
    absorber = row(e1, pump.id)
    (record,) = absorber.merge_history
    assert record["source_id"] == pump_too.id and record["source_agent"] == "earth-2"
    assert record["type"] == wave.CONSTRUCTIVE and record["amplitude_before"] == pytest.approx(amplitude_before)
    assert absorber.amplitude > amplitude_before and absorber.amplitude == pytest.approx(record["amplitude_after"])
    assert row(e1, tomatoes.id).absorbed_into is None
    ledger = e1.trust_ledger("earth-2")
    assert [ev["reason"] for ev in ledger["events"]] == ["corroborated"] and ledger["trust"] == pytest.approx(0.52)
    after_agreement = e1.recall(ASK_PUMP, k=5)
    assert after_agreement[0].memory.id == pump.id
    assert pump_too.id not in {h.memory.id for h in after_agreement}  # recall shows the absorber, not both
    assert after_agreement[0].score > before[0].score

    # a contradiction lands in quarantine; a half-sure report is linked as a partial agreement
    result = e1.pull(peers=["mars-1"])
    report = peer_report(result, "mars-1")
    assert report["summary"]["destructive"] == 1 and report["summary"]["partial"] == 1
    case_id = quarantine.case_id(pump.id, not_pump.id)
    assert report["summary"]["cases"] == [case_id]
    assert result["quarantine"]["pushed"] is True
    assert row(e1, pump.id).disputed and row(e1, not_pump.id).disputed
    assert links(e1, pump.id, not_pump.id, "disputes") and links(e1, not_pump.id, pump.id, "disputes")
    (partial,) = links(e1, storm_m.id, storm.id, "partial_agreement")
    assert partial["weight"] == pytest.approx(0.0, abs=1e-6)  # cos(pi/2)
    assert not row(e1, storm.id).disputed and not row(e1, storm_m.id).disputed
    (case,) = e1.cases()
    assert case["id"] == case_id and case["status"] == "pending" and case["dispute_count"] == 1
    assert {case["agent_a"], case["agent_b"]} == {"earth-1", "mars-1"}
    assert [ev["reason"] for ev in e1.trust_ledger("mars-1")["events"]] == ["quarantined"]
    hits = {h.memory.id: h for h in e1.recall(ASK_PUMP, k=5)}
    assert hits[pump.id].memory.disputed and hits[not_pump.id].memory.disputed

    # everyone pulls everyone, twice: the same open cases everywhere
    sync_round(trio)
    sync_round(trio)
    cases = open_cases(e1)
    assert {c["id"] for c in cases} == {case_id, quarantine.case_id(pump_too.id, not_pump.id)}
    assert open_cases(e2) == cases and open_cases(m1) == cases
    (seen_by_mars,) = [c for c in cases if c["id"] == case_id]
    assert seen_by_mars["dispute_count"] == 2  # opened by earth-1, met again by mars-1: the larger count

    # a person resolves it through the CLI: earth-1's memory is kept
    keep = "a" if case["memory_id_a"] == pump.id else "b"
    head = e1.repo.head(e1.branch)
    resolved = cmem(home, "quarantine", "resolve", case_id, "--keep", keep, "--note", "checked on site",
                    "--by", "ana", "--agent", "earth-1", "--json")
    assert resolved.exit_code == 0, resolved.output
    verdict = json.loads(resolved.stdout)
    assert verdict["status"] == "resolved" and verdict["resolution"]["keep"] == keep
    assert verdict["resolution"]["by"] == "ana" and verdict["quarantine"]["pushed"] is True
    assert e1.repo.head(e1.branch) == verdict["commit"] != head
    assert not row(e1, pump.id).disputed and row(e1, not_pump.id).disputed
    assert [ev["reason"] for ev in e1.trust_ledger("mars-1")["events"]][-1] == "verdict_against"
    assert e1.trust_scores()["earth-1"] == 1.0 and not e1.repo.select("trust_events", {"agent_id": "earth-1"})

    # resolving again, or with a choice that does not exist: exit 2, nothing written
    for args in (["--keep", keep], ["--keep", "neither"]):
        snapshot = state(e1)
        again = cmem(home, "quarantine", "resolve", case_id, *args, "--agent", "earth-1")
        assert again.exit_code == 2 and again.stderr.count("\n") == 1, again.output
        assert again.stderr.startswith("Error: case: " if args[1] == keep else "Error: keep: ")
        assert state(e1) == snapshot

    # the others see the verdict after a pull, with its flags and trust
    for agent in (m1, e2):
        agent.pull()
        (theirs,) = [c for c in agent.cases() if c["id"] == case_id]
        assert theirs["status"] == "resolved" and theirs["resolution"]["keep"] == keep
        assert not row(agent, pump.id).disputed and row(agent, not_pump.id).disputed
    assert [ev["reason"] for ev in m1.trust_ledger("earth-1")["events"]][-1] == "verdict_for"
    assert not m1.repo.select("trust_events", {"agent_id": "mars-1"})  # never about itself
    assert [ev["reason"] for ev in e2.trust_ledger("mars-1")["events"]][-1] == "verdict_against"
    sync_round(trio)
    remaining = open_cases(e1)
    assert [c["id"] for c in remaining] == [quarantine.case_id(pump_too.id, not_pump.id)]
    assert open_cases(e2) == remaining and open_cases(m1) == remaining

    # recall after: the kept memory leads, undisputed; the refuted one is still marked
    after = {h.memory.id: h for h in e1.recall(ASK_PUMP, k=5)}
    assert next(iter(after)) == pump.id and not after[pump.id].memory.disputed
    assert after[not_pump.id].memory.disputed


def test_one_dispute_opened_from_both_sides_is_one_case(trio):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    not_pump = m1.store(NOT_PUMP).memory
    e1.push()
    m1.push()
    # both pull at the same time: each opens the case before either has shared it
    reports = {}
    for agent, peer in ((e1, "mars-1"), (m1, "earth-1")):
        heads = exchange.fetch(agent, "origin")
        reports[agent.agent_id] = exchange.pull_peer(agent, "origin", peer, heads[f"{peer}/working"],
                                                     dry_run=False, comparator=agent.comparator())
    case_id = quarantine.case_id(pump.id, not_pump.id)
    assert reports["earth-1"].summary["cases"] == reports["mars-1"].summary["cases"] == [case_id]
    # concurrent pushes of the quarantine branch: the second is behind, rebuilds on the first, converges
    assert exchange.share_cases(e1, "origin")["pushed"]
    second = exchange.share_cases(m1, "origin")
    assert second["cases"] == 1  # nothing the commons lacks: the earlier opening already stands there
    for agent in (e1, m1):
        agent.pull()
    assert [c["id"] for c in e1.cases()] == [c["id"] for c in m1.cases()] == [case_id]
    assert open_cases(e1) == open_cases(m1)
    exchange.fetch(e1, "origin")
    shared = e1.repo.select("quarantine", as_of=f"origin/{quarantine.QUARANTINE_BRANCH}")
    assert [c["id"] for c in shared] == [case_id] and shared[0]["dispute_count"] == 1
    # the disputed pair travels with its case, and nothing else does
    pair = e1.repo.select("memories", columns=("id", "content"), as_of=f"origin/{quarantine.QUARANTINE_BRANCH}")
    assert {r["id"]: r["content"] for r in pair} == {pump.id: PUMP, not_pump.id: NOT_PUMP}


def test_an_agent_meeting_a_resolved_pair_later_follows_the_verdict(trio):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    not_pump = m1.store(NOT_PUMP).memory
    m1.push()
    e1.pull()
    case_id = quarantine.case_id(pump.id, not_pump.id)
    keep = "a" if min(pump.id, not_pump.id) == pump.id else "b"
    e1.resolve_case(case_id, keep=keep, by="ana")
    e1.push()
    # earth-2 never held either memory: it takes the verdict first, then meets the pair
    result = e2.pull()
    assert peer_report(result, "mars-1")["summary"]["cases"] == []
    (case,) = e2.cases()
    assert case["status"] == "resolved" and case["dispute_count"] == 1
    assert not row(e2, pump.id).disputed and row(e2, not_pump.id).disputed
    assert row(e2, not_pump.id).amplitude == pytest.approx(not_pump.amplitude)  # no dispute penalty either
    assert [ev["reason"] for ev in e2.trust_ledger("mars-1")["events"]] == []  # no new quarantine penalty


def forged_row(agent: Agent, origin: str, content: str, *, signer) -> Memory:
    vector = agent.embedder.embed([content])[0]
    now = iso(utcnow())
    memory = Memory(id=uuid7(), content=content, summary=content, vector=vector, dim=len(vector),
                    model_version=agent.embedder.model_version, content_hash=content_hash(content),
                    amplitude=0.9, phase=0.0, category="knowledge", origin_agent=origin,
                    created_at=now, updated_at=now)
    memory.signature = signer.sign(memory.claim())
    return memory


def test_a_forged_origin_is_refused_and_reported(trio, home):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    e2.store(TOMATOES)
    e2.push()
    genuine = m1.store(STORM).memory
    # mars-1 writes rows claiming to be earth-2's (a known agent) and venus-1's (nobody), signed by itself
    as_earth_2 = forged_row(m1, "earth-2", "Earth-2 confirms the coolant pump in module B is not safe", signer=m1.identity)
    as_nobody = forged_row(m1, "venus-1", "The landing site is closed for good", signer=m1.identity)
    with m1.repo.transaction():
        m1.repo.insert("memories", [as_earth_2.to_row(), as_nobody.to_row()])
        m1.repo.commit("store two memories", author="mars-1")
    m1.push()

    result = cmem(home, "pull", "--from", "mars-1", "--agent", "earth-1", "--json")
    assert result.exit_code == 0, result.output
    report = peer_report(json.loads(result.stdout), "mars-1")
    assert report["refused"] == {"forged_origin": 2}
    assert report["summary"]["new"] == 1
    held = {r["id"] for r in e1.repo.select("memories")}
    assert genuine.id in held and as_earth_2.id not in held and as_nobody.id not in held
    text = cmem(home, "pull", "--agent", "earth-1")  # earth-2 pulled now; mars-1 is unchanged
    assert text.exit_code == 0 and "mars-1: nothing new" in text.stdout
    assert as_earth_2.id not in {r["id"] for r in e1.repo.select("memories")}


def test_a_relayed_copy_of_an_unmet_agent_is_not_called_forged(trio):
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    tomatoes = e2.store(TOMATOES).memory
    e2.push()
    m1.pull()  # mars-1 now holds earth-2's memory, signed by earth-2
    m1.push()
    report = peer_report(e1.pull(peers=["mars-1"]), "mars-1")  # earth-1 has never met earth-2
    assert report["refused"] == {} and report["summary"]["relayed_skipped"] == 1
    assert tomatoes.id not in {r["id"] for r in e1.repo.select("memories")}  # taken from its origin only
    e1.pull(peers=["earth-2"])
    assert tomatoes.id in {r["id"] for r in e1.repo.select("memories")}


def test_a_tampered_memory_is_refused(trio):
    e1, m1 = trio["earth-1"], trio["mars-1"]
    kept = m1.store(STORM).memory
    m1.push()
    e1.pull()
    assert row(e1, kept.id).content == STORM
    # mars-1's database is edited behind its back: one pulled memory changed, one new one changed
    fresh = m1.store(TOMATOES).memory
    with m1.repo.transaction():
        m1.repo.update("memories", {"content": "The dust storm was cancelled"}, {"id": kept.id})
        m1.repo.update("memories", {"content": "The greenhouse is on fire"}, {"id": fresh.id})
        m1.repo.commit("edit", author="mars-1")
    m1.push()
    report = peer_report(e1.pull(), "mars-1")
    assert report["refused"] == {"bad_signature": 2}
    assert row(e1, kept.id).content == STORM
    assert fresh.id not in {r["id"] for r in e1.repo.select("memories")}
    assert verify(m1.identity.public_key, row(e1, kept.id).claim(), row(e1, kept.id).signature)


def test_absorbers_keep_valid_signatures_for_their_peers(trio):
    """A constructive merge blends the absorber's vector; its peers must still accept it."""
    e1, e2, m1 = trio["earth-1"], trio["earth-2"], trio["mars-1"]
    pump = e1.store(PUMP).memory
    e2.store(PUMP_TOO)
    e2.push()
    e1.pull()  # earth-1's pump memory absorbs earth-2's
    assert row(e1, pump.id).merge_history
    e1.push()
    report = peer_report(m1.pull(peers=["earth-1"]), "earth-1")
    assert report["refused"] == {}
    assert pump.id in {r["id"] for r in m1.repo.select("memories")}


# --- bad input through the CLI --------------------------------------------------------
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lone(home, tmp_path, real_embedder):
    """One agent with a memory and three remotes that cannot serve it."""
    with Agent.init("earth-1", home=home, embedder=real_embedder) as agent:
        agent.store(PUMP)
        agent.add_remote("dead", f"http://127.0.0.1:{closed_port()}/x.db")
        agent.add_remote("junk", f"file://{tmp_path / 'junk.db'}")
        if (tmp_path / "junk.db").is_dir():  # Dolt made an empty remote folder: replace it
            shutil.rmtree(tmp_path / "junk.db")
        (tmp_path / "junk.db").write_bytes(b"this is not a database\n" * 200)  # the commons turned to junk
        agent.add_remote("gone", f"file://{tmp_path / 'nowhere.db'}")
        yield agent


BAD = [
    (["pull", "nope"], 2, "remote"),
    (["push", "nope"], 2, "remote"),
    (["pull", "--from", "mars-1", "gone"], 1, "remote 'gone' is unreachable"),
    (["pull", "dead"], 1, "remote 'dead' is unreachable"),
    (["push", "dead"], 1, "remote 'dead' is unreachable"),
    (["pull", "junk"], 2, "remote"),
    (["push", "junk"], 2, "remote"),
    (["remote", "add", "x", "ftp://example.org/c.db"], 2, "url"),
    (["remote", "add", "x", "file://relative/c.db"], 2, "url"),
    (["remote", "add", "junk", "file:///tmp/c.db"], 2, "name"),
    (["quarantine", "resolve", "0123abcd", "--keep", "a"], 2, "case"),
    (["quarantine", "resolve", "0123abcd", "--keep", "sideways"], 2, "keep"),
    (["quarantine", "list", "--status", "open"], 2, "status"),
]


@pytest.mark.parametrize("args, code, field", BAD, ids=[" ".join(a)[:40] for a, _, _ in BAD])
def test_bad_input_through_the_cli_is_one_line_and_writes_nothing(lone, home, args, code, field):
    before = state(lone)
    remotes = lone.remotes()
    result = cmem(home, *args, "--agent", "earth-1")
    assert result.exit_code == code, (result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {field}"), result.stderr
    assert state(lone) == before and lone.remotes() == remotes


def test_a_file_that_is_not_a_database_is_left_alone(lone, home, tmp_path):
    junk = (tmp_path / "junk.db").read_bytes()
    assert cmem(home, "pull", "junk", "--agent", "earth-1").exit_code == 2
    assert cmem(home, "push", "junk", "--agent", "earth-1").exit_code == 2
    assert (tmp_path / "junk.db").read_bytes() == junk


def test_serve_commons_prints_its_url_serves_and_stops_on_a_signal(tmp_path, home, hash_embedder):
    import signal
    import subprocess
    import sys

    folder = tmp_path / "served"
    folder.mkdir()
    server = subprocess.Popen([sys.executable, "-m", "collective.cli", "serve-commons", str(folder)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with Agent.init("earth-1", home=home, embedder=hash_embedder, backend="doltlite") as agent:
            agent.store("served through the commons")
            agent.add_remote("origin", f"{url}/commons.db")
            agent.push()
        assert (folder / "commons.db").read_bytes()[:4] == b"CTLD"
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0 and "stopped" in err
