"""Keys the collective agrees on: key files only their owner reads, rotations signed by
the old key, and a key that changes without one refused until a person decides."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import pytest

from collective import key_rotation
from collective.agent import Agent
from collective.errors import BadInput, CollectiveError
from collective.exchange.push import AgentRecreated
from collective.identity import Identity, fingerprint, rotation_claim, verify

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def pair(home, commons_url, hash_embedder):
    """earth-1 and mars-1 sharing a commons; mars-1 has pulled earth-1 once."""
    agents = {name: Agent.init(name, home=home, embedder=hash_embedder) for name in ("earth-1", "mars-1")}
    try:
        for agent in agents.values():
            agent.add_remote("origin", commons_url)
        agents["earth-1"].store("The greenhouse tomatoes are ripe")
        agents["earth-1"].push()
        agents["mars-1"].pull()
        yield agents
    finally:
        for agent in agents.values():
            agent.close()


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def report_of(result, peer: str) -> dict:
    (report,) = [p for p in json.loads(result.stdout)["peers"] if p["peer"] == peer]
    return report


def test_key_files_are_0600_and_a_loose_one_is_refused(agent, cmem):
    assert mode(agent.key_path) == 0o600
    made = cmem("reviewer", "init", "--name", "ana", "--json")
    assert made.exit_code == 0, made.output
    assert mode(json.loads(made.stdout)["key_file"]) == 0o600
    agent.close()
    os.chmod(agent.key_path, 0o644)
    result = cmem("status", "--agent", "earth-1")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"Error: key file {agent.key_path} can be read by group or others (mode 0644): "
                             f"run chmod 600 {agent.key_path}\n")
    with pytest.raises(CollectiveError, match="group or others"):
        Agent.open("earth-1", home=agent.home.root)
    os.chmod(agent.key_path, 0o600)
    Agent.open("earth-1", home=agent.home.root).close()


def test_a_rotation_signed_by_the_old_key_is_accepted(pair, cmem, home, hash_embedder):
    e1 = pair["earth-1"]
    old, url = e1.identity.public_key, e1.remotes()["origin"]
    e1.close()
    rotated = cmem("key", "rotate", "--agent", "earth-1", "--json")
    assert rotated.exit_code == 0, rotated.output
    new = json.loads(rotated.stdout)["public_key"]
    assert new != old and mode(e1.key_path) == 0o600
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as again:
        assert again.identity.public_key == new
        fresh = again.store("The dust storm reaches the landing site on Friday").memory
        again.push()

    result = cmem("pull", "--agent", "mars-1", "--json")
    assert result.exit_code == 0, result.output
    report = report_of(result, "earth-1")
    assert report["key"] == {"rotated": fingerprint(new)} and report["refused"] == {}
    assert pair["mars-1"].get(fresh.id).content.startswith("The dust storm")
    # a newcomer meets earth-1 after the rotation: what the old key signed is still earth-1's
    with Agent.init("venus-1", home=home, embedder=hash_embedder) as newcomer:
        newcomer.add_remote("origin", url)
    first = cmem("pull", "--agent", "venus-1")
    assert first.exit_code == 0, first.output
    assert f"earth-1: first sighting, key {fingerprint(new)}" in first.stdout
    with Agent.open("venus-1", home=home, embedder=hash_embedder) as newcomer:
        assert newcomer.tables.memories.count(origin_agent="earth-1") == 2


def replace_key_without_rotation(agent: Agent) -> Identity:
    """What a re-created agent (or a stolen branch) looks like: another key, no rotation."""
    agent.key_path.unlink()
    new = Identity.generate(agent.key_path)
    with agent.repo.transaction():
        agent.tables.agents.set_key(agent.agent_id, new.public_key)
        agent.repo.commit("another key", author=agent.agent_id)
    agent.identity = agent.writer.identity = new
    return new


def test_a_key_change_without_rotation_is_refused_until_a_person_decides(pair, cmem):
    e1 = pair["earth-1"]
    new = replace_key_without_rotation(e1)
    e1.store("The coolant pump in module B is not safe to operate")
    e1.push()
    for _ in range(2):  # every pull that meets it says so
        refused = cmem("pull", "--agent", "mars-1", "--json")
        assert refused.exit_code == 1, refused.output
        assert refused.stderr == "Error: refused data from earth-1 (key_changed); --allow-refused exits 0\n"
        assert report_of(refused, "earth-1")["key"] == {"refused": fingerprint(new.public_key)}
    assert pair["mars-1"].repo.count("memories") == 1
    listed = cmem("agents", "--agent", "mars-1")
    assert "WARNING: key changed to " + fingerprint(new.public_key) in listed.stdout
    assert "1 peer key change(s) refused" in cmem("status", "--agent", "mars-1").stdout

    rejected = cmem("agents", "reject-key", "earth-1", "--agent", "mars-1")
    assert rejected.exit_code == 0, rejected.output
    still = cmem("pull", "--agent", "mars-1")
    assert still.exit_code == 1 and "earth-1 (key_rejected)" in still.stderr
    assert cmem("pull", "--agent", "mars-1", "--allow-refused").exit_code == 0

    accepted = cmem("agents", "accept-key", "earth-1", "--agent", "mars-1", "--json")
    assert accepted.exit_code == 0 and json.loads(accepted.stdout)["decision"] == "accepted"
    pulled = cmem("pull", "--agent", "mars-1", "--json")
    assert pulled.exit_code == 0, pulled.output
    assert "WARNING" not in cmem("agents", "--agent", "mars-1").stdout
    assert pair["mars-1"].repo.count("memories") == 2
    unknown = cmem("agents", "accept-key", "earth-1", "--agent", "mars-1")
    assert unknown.exit_code == 2 and unknown.stderr.count("\n") == 1


def test_a_rotation_signed_by_another_key_is_a_key_change(pair, cmem):
    e1 = pair["earth-1"]
    stranger = Identity.generate(e1.folder / "stranger.pem")
    held, at = e1.identity.public_key, "2026-12-01T00:00:00.000000Z"
    with e1.repo.transaction():  # claims to rotate away from the held key, signed by another
        e1.tables.key_rotations.write([{"agent_id": "earth-1", "old_key": held, "new_key": stranger.public_key,
                                        "rotated_at": at, "signature": stranger.sign(
                                            rotation_claim("earth-1", held, stranger.public_key, at))}])
        e1.tables.agents.set_key("earth-1", stranger.public_key)
        e1.repo.commit("rotate", author="earth-1")
    e1.push()
    refused = cmem("pull", "--agent", "mars-1")
    assert refused.exit_code == 1 and "earth-1 (key_changed)" in refused.stderr


def test_an_agent_made_again_with_the_same_id_gets_advice(pair, tmp_path, hash_embedder):
    url = pair["earth-1"].remotes()["origin"]
    with Agent.init("earth-1", home=tmp_path / "elsewhere", embedder=hash_embedder) as twin:
        twin.add_remote("origin", url)
        twin.store("The coolant pump in module B is safe to operate")
        with pytest.raises(AgentRecreated, match="created again with the same id") as refused:
            twin.push()
    assert "Restore its old key and database, or use a new agent id" in str(refused.value)


def test_an_interrupted_rotation_is_finished_or_undone(agent, home, hash_embedder):
    old = agent.identity.public_key
    pending = Identity.generate(agent.key_path.with_name(agent.key_path.name + key_rotation.NEXT_SUFFIX))
    agent.close()
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as again:  # the database never named it
        assert again.identity.public_key == old
        assert not again.key_path.with_name(again.key_path.name + key_rotation.NEXT_SUFFIX).exists()
        pending = Identity.generate(again.key_path.with_name(again.key_path.name + key_rotation.NEXT_SUFFIX))
        with again.repo.transaction():  # the commit landed, the rename did not
            again.tables.agents.set_key("earth-1", pending.public_key)
            again.repo.commit("rotate", author="earth-1")
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as again:
        assert again.identity.public_key == pending.public_key
        assert Identity.load(again.key_path).public_key == pending.public_key


def test_a_newcomer_meeting_a_key_its_peers_hold_differently_asks_a_person(pair, cmem, home, hash_embedder):
    e1, m1 = pair["earth-1"], pair["mars-1"]
    m1.push()  # mars-1's branch holds earth-1's first key
    new = replace_key_without_rotation(e1)
    e1.store("The coolant pump in module B is not safe to operate")
    e1.push()
    with Agent.init("venus-1", home=home, embedder=hash_embedder) as newcomer:
        newcomer.add_remote("origin", e1.remotes()["origin"])
    refused = cmem("pull", "--agent", "venus-1", "--json")
    assert refused.exit_code == 1, refused.output
    assert "earth-1 (key_disputed)" in refused.stderr
    assert report_of(refused, "mars-1")["key"] == {"first_sighting": fingerprint(m1.identity.public_key)}
    listed = json.loads(cmem("agents", "--agent", "venus-1", "--json").stdout)
    (warned,) = [r for r in listed if r["agent"] == "earth-1"]
    assert warned["trust"] is None and warned["key_fingerprint"] == fingerprint(new.public_key)
    assert "WARNING" in cmem("agents", "--agent", "venus-1").stdout

    assert cmem("agents", "accept-key", "earth-1", "--agent", "venus-1").exit_code == 0
    taken = cmem("pull", "--agent", "venus-1", "--json")
    # the new key signed only the newest memory: the one the old key signed is refused
    assert taken.exit_code == 1 and "earth-1 (bad_signature)" in taken.stderr
    assert report_of(taken, "earth-1")["summary"]["new"] == 1
    assert "WARNING" not in cmem("agents", "--agent", "venus-1").stdout


def rotation_chain(agent: Agent, first_key: str) -> list[str]:
    """The keys from `first_key` on, each rotation signed by the one before; the rotations
    must form one chain (no key rotated twice)."""
    rows = agent.repo.select("key_rotations", {"agent_id": agent.agent_id})
    by_old = {r["old_key"]: r for r in rows}
    assert len(by_old) == len(rows), "a key was rotated twice: peers holding either successor refuse the other"
    chain = [first_key]
    while chain[-1] in by_old:
        step = by_old[chain[-1]]
        assert verify(chain[-1], rotation_claim(agent.agent_id, step["old_key"], step["new_key"], step["rotated_at"]),
                      step["signature"])
        chain.append(step["new_key"])
    assert len(chain) == len(rows) + 1
    return chain


def key_file_agrees(agent: Agent) -> None:
    assert Identity.load(agent.key_path).public_key == agent.tables.agents.public_key(agent.agent_id)
    assert not list(agent.folder.glob("*" + key_rotation.NEXT_SUFFIX))


def test_a_rotation_by_an_agent_opened_before_another_rotation_continues_its_chain(agent, home, hash_embedder):
    first = agent.identity.public_key
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as other:  # holds the first key too
        agent.rotate_key()
        other.rotate_key()
        assert other.identity.public_key == other.tables.agents.public_key("earth-1")
    chain = rotation_chain(agent, first)
    assert len(chain) == 3 and chain[-1] == Identity.load(agent.key_path).public_key
    key_file_agrees(agent)


def test_a_next_key_cut_short_while_written_is_discarded(agent, home, hash_embedder):
    old = agent.identity.public_key
    next_path = agent.key_path.with_name(agent.key_path.name + key_rotation.NEXT_SUFFIX)
    agent.close()
    fd = os.open(next_path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, agent.key_path.read_bytes()[:30])  # a crash while the new key was being written
    os.close(fd)
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as again:
        assert again.identity.public_key == old and not next_path.exists()
        again.rotate_key()
        key_file_agrees(again)


ROTATE_MANY = """
import sys, time
from pathlib import Path
from collective.agent import Agent
home, go = sys.argv[1], Path(sys.argv[2])
while not go.exists():
    time.sleep(0.005)
for _ in range(int(sys.argv[3])):
    with Agent.open("earth-1", home=home) as agent:
        agent.rotate_key()
"""


def test_rotations_at_once_in_two_processes_leave_one_chain_and_the_key_the_row_names(agent, home, tmp_path):
    first, go, rounds = agent.identity.public_key, tmp_path / "go", 6
    agent.close()
    workers = [subprocess.Popen([sys.executable, "-c", ROTATE_MANY, str(home), str(go), str(rounds)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        time.sleep(0.5)  # both started and waiting: they begin at once
        go.touch()
        done = [w.communicate(timeout=120) for w in workers]
    finally:
        for w in workers:
            w.kill()
    assert [w.returncode for w in workers] == [0, 0] and [err for _, err in done] == ["", ""], done
    with Agent.open("earth-1", home=home) as again:
        chain = rotation_chain(again, first)
        assert len(chain) == 2 * rounds + 1 and chain[-1] == again.identity.public_key
        key_file_agrees(again)


def test_a_key_is_rotated_only_on_the_working_branch_where_peers_read_it(agent, home, hash_embedder):
    key = agent.key_path.read_bytes()
    with Agent.open("earth-1", home=home, embedder=hash_embedder, branch="main") as on_main:
        head = on_main.repo.head("main")
        with pytest.raises(BadInput, match="^branch: a key is rotated on earth-1/working, not main$"):
            on_main.rotate_key()
        assert on_main.repo.head("main") == head and agent.key_path.read_bytes() == key
