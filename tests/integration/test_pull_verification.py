"""A pull takes only what its origin signed: forged origins and tampered rows are refused
and reported; a relayed copy of a third agent's memory is taken from its origin instead."""

from __future__ import annotations

import json

import pytest

from collective.agent import Agent
from collective.identity import verify
from collective.model import Memory, content_hash, iso, utcnow, uuid7

STORM = "The dust storm will reach the landing site on Friday"
TOMATOES = "The greenhouse tomatoes are ripe"

# The collective behaviour is the same on both engines.
pytestmark = pytest.mark.usefixtures("engine")


def peer_report(result: dict, peer: str) -> dict:
    (report,) = [p for p in result["peers"] if p["peer"] == peer]
    return report


def forged_row(agent: Agent, origin: str, content: str, *, signer) -> Memory:
    vector = agent.embedder.embed([content])[0]
    now = iso(utcnow())
    memory = Memory(id=uuid7(), content=content, summary=content, vector=vector, dim=len(vector),
                    model_version=agent.embedder.model_version, content_hash=content_hash(content),
                    amplitude=0.9, phase=0.0, category="knowledge", origin_agent=origin,
                    created_at=now, updated_at=now)
    memory.signature = signer.sign(memory.claim())
    return memory


def test_a_forged_origin_is_refused_and_reported(trio, cmem):
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

    result = cmem("pull", "--from", "mars-1", "--agent", "earth-1", "--json")
    # what verified is taken; the pull says what it refused and exits 1
    assert result.exit_code == 1, result.output
    assert result.stderr == "Error: refused data from mars-1 (forged_origin); --allow-refused exits 0\n"
    report = peer_report(json.loads(result.stdout), "mars-1")
    assert report["refused"] == {"forged_origin": 2}
    assert report["summary"]["new"] == 1
    held = {r["id"] for r in e1.repo.select("memories")}
    assert genuine.id in held and as_earth_2.id not in held and as_nobody.id not in held
    text = cmem("pull", "--agent", "earth-1")  # earth-2 pulled now; mars-1 is unchanged
    assert text.exit_code == 0 and "mars-1: no new memories" in text.stdout
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
    assert e1.get(kept.id).content == STORM
    # mars-1's database is edited behind its back: one pulled memory changed, one new one changed
    fresh = m1.store(TOMATOES).memory
    with m1.repo.transaction():
        m1.repo.update("memories", {"content": "The dust storm was cancelled"}, {"id": kept.id})
        m1.repo.update("memories", {"content": "The greenhouse is on fire"}, {"id": fresh.id})
        m1.repo.commit("edit", author="mars-1")
    m1.push()
    report = peer_report(e1.pull(), "mars-1")
    assert report["refused"] == {"bad_signature": 2}
    assert e1.get(kept.id).content == STORM
    assert fresh.id not in {r["id"] for r in e1.repo.select("memories")}
    assert verify(m1.identity.public_key, e1.get(kept.id).claim(), e1.get(kept.id).signature)
