"""The collective's roster (docs/concepts/security.md): made and changed by a threshold of its owners,
followed from the commons version by version, and the one answer to who may do what. Each
attack is a member (or anyone who writes the commons) acting outside the roster; the
honest agents' state changes only through what the roster allows."""

from __future__ import annotations

import contextlib

import json
import shutil
from pathlib import Path

import pytest

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.errors import BadInput, NotFound
from collective.model.refs import ROSTER_BRANCH

FACT = "Valve E on the coolant loop is open."
CONTRADICTION = "Valve E on the coolant loop is not open."


pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def commons(file_commons):
    return file_commons


def copy_commons(commons: str, to) -> None:
    """What whoever keeps the commons' files can do: copy them (a backup), or put a copy back."""
    path = commons.removeprefix("file://")
    if Path(path).is_dir():
        shutil.rmtree(to, ignore_errors=True)
        shutil.copytree(path, to)
    else:
        shutil.copy(path, to)


def restore_commons(commons: str, copy) -> None:
    path = commons.removeprefix("file://")
    if Path(path).is_dir():
        shutil.rmtree(path)
        shutil.copytree(copy, path)
    else:
        shutil.copy(copy, path)


@pytest.fixture
def trio(file_trio):
    """The three agents on a file commons, with the hashing embedder (the roster is engine-blind)."""
    return file_trio


@pytest.fixture
def rostered(trio, home):
    """ana owns the roster of `habitat` and reviews; the three agents are on it; all follow it."""
    reviewer_keys.init(Home.at(home), "ana")
    e1 = trio["earth-1"]
    e1.init_roster("habitat", owners=["ana"])
    for name in trio:
        e1.roster_add_agent(name)
    e1.roster_add_reviewer("ana")
    for agent in trio.values():
        agent.pull()
    return trio


def open_dispute(trio, fact: str = FACT, contradiction: str = CONTRADICTION) -> str:
    """earth-1 says `fact`, mars-1 the contradiction; two rounds: the new dispute's id."""
    e1, m1 = trio["earth-1"], trio["mars-1"]
    before = {d["dispute"] for d in m1.disputes("open")}
    e1.store(fact)
    m1.store(contradiction)
    for agent in (e1, m1):
        agent.push()
    for agent in (*trio.values(), *trio.values()):
        agent.pull()
    (dispute,) = [d["dispute"] for d in m1.disputes("open") if d["dispute"] not in before]
    return dispute


def test_the_roster_travels_version_by_version(rostered):
    shown = {name: agent.roster() for name, agent in rostered.items()}
    assert {s["version"] for s in shown.values()} == {5}  # made, three agents, one reviewer
    roster = shown["mars-1"]
    assert roster["collective"] == "habitat" and [m["name"] for m in roster["agents"]] == sorted(rostered)
    assert [m["name"] for m in roster["reviewers"]] == ["ana"] and roster["threshold"] == 1
    assert rostered["mars-1"].pull()["roster"]["taken"] == 0  # nothing new: nothing taken


def test_a_change_needs_the_owners_signatures(rostered, home):
    reviewer_keys.init(Home.at(home), "mallory")
    with pytest.raises(BadInput, match="needs 1 owner signature"):
        rostered["mars-1"].roster_add_reviewer("mallory", by=["mallory"])
    assert rostered["mars-1"].roster()["version"] == 5


def test_a_rolled_back_roster_is_refused_and_reported(rostered, tmp_path, commons):
    """The commons is put back to a copy from before the last version: no agent goes back,
    and the pull says so and exits non-zero (a refusal)."""
    m1 = rostered["mars-1"]
    copy_commons(commons, tmp_path / "old.db")
    rostered["earth-1"].roster_remove("earth-2")
    assert m1.pull()["roster"]["version"] == 6 and "earth-2" not in [a["name"] for a in m1.roster()["agents"]]
    restore_commons(commons, tmp_path / "old.db")  # version 5, which still names earth-2
    result = m1.pull()
    assert result["refused"]["collective/roster"] == {"roster_rolled_back": [6]}
    assert m1.roster()["version"] == 6 and "earth-2" not in [a["name"] for a in m1.roster()["agents"]]


def test_a_verdict_by_no_roster_reviewer_closes_nothing(rostered, tmp_path, commons, hash_embedder):
    """A rogue agent that never took the roster signs a verdict with its own key named ana:
    the honest agents set it aside, the dispute stays open, and the real ana decides it."""
    dispute = open_dispute(rostered)
    rogue_home = tmp_path / "rogue"
    rogue = Agent.init("rogue-1", home=rogue_home, embedder=hash_embedder)
    try:
        rogue.add_remote("origin", commons)
        # it takes the cases from before the roster's reviewer check: a copy of the quarantine
        rogue.repo.fetch("origin")
        rogue.quarantine.take_from("origin")
        reviewer_keys.init(Home.at(rogue_home), "ana")  # a key of its own, named ana
        rogue.resolve_dispute(dispute, keep="a", note="squatted", by="ana")
    finally:
        rogue.close()
    refused = []
    for name, agent in rostered.items():
        result = agent.pull()
        refused += result["refused"].get("collective/quarantine", {}).get("unauthorised_verdict", [])
        assert [d["dispute"] for d in agent.disputes("open")] == [dispute], name
    # the first honest agent to pull set it aside, and its share put the case back as it was
    assert refused
    real = rostered["mars-1"].resolve_dispute(dispute, keep="a", note="inspected", by="ana")
    assert real["status"] == "resolved"
    for agent in rostered.values():
        agent.pull()
        assert agent.disputes("open") == []


def test_a_backdated_verdict_displaces_no_real_one(rostered, tmp_path, hash_embedder):
    """ana decides on mars-1 and shares it; a writer then puts on the commons a verdict of its
    own key named ana, dated 1970, before earth-1 and earth-2 pulled the real one: they set
    it aside, and once mars-1 shares again every agent applies ana's real verdict."""
    from tests.integration.test_signed_cases import push_onto_commons, shared_case, verdict

    dispute = open_dispute(rostered)
    m1 = rostered["mars-1"]
    real = m1.resolve_dispute(dispute, keep="a", note="inspected", by="ana")
    rogue_home = tmp_path / "rogue"
    rogue = Agent.init("rogue-1", home=rogue_home, embedder=hash_embedder)
    try:
        rogue.add_remote("origin", m1.remotes()["origin"])
        reviewer_keys.init(Home.at(rogue_home), "ana")
        case = shared_case(rogue, real["resolved_cases"][0])
        backdated = verdict(case, reviewer_keys.load(Home.at(rogue_home), "ana"), keep="b", by="ana",
                            at="1970-01-01T00:00:00.000000Z")
        push_onto_commons(rogue, [{**case, **backdated}])
    finally:
        rogue.close()
    refused = rostered["earth-1"].pull()["refused"]
    assert refused["collective/quarantine"]["unauthorised_verdict"] == [case["id"]]
    for agent in (m1, *rostered.values()):
        agent.pull()
    for name, agent in rostered.items():
        (seen,) = [d for d in agent.disputes() if d["dispute"] == dispute]
        assert seen["status"] == "resolved" and seen["resolution"]["at"] == real["resolution"]["at"], name
        assert seen["applied"] and seen["resolution"]["keep"] == "a", name


def test_a_reviewer_not_on_the_roster_cannot_resolve_here(rostered, home):
    dispute = open_dispute(rostered)
    reviewer_keys.init(Home.at(home), "mallory")
    with pytest.raises(BadInput, match="not a reviewer on the roster of habitat"):
        rostered["mars-1"].resolve_dispute(dispute, keep="a", note="x", by="mallory")
    with pytest.raises(BadInput, match="roster of habitat"):
        rostered["mars-1"].add_reviewer("mallory", reviewer_keys.load(Home.at(home), "mallory").public_key)


def test_endorsements_count_only_from_roster_endorsers(rostered, home, commons, hash_embedder):
    """Two agents made for the purpose endorse earth-1's proposal: nothing is promoted; two
    agents of the roster do: it is."""
    e1 = rostered["earth-1"]
    memory = e1.store("The hatch on module C is sealed.").memory
    e1.push()
    e1.promote(memory.id)
    socks = [Agent.init(f"sock-{i}", home=home, embedder=hash_embedder) for i in (1, 2)]
    try:
        for sock in socks:
            sock.add_remote("origin", commons)
            sock.pull()
            assert sock.endorse(memory.id)["status"] == "pending"  # it follows the roster too
    finally:
        for sock in socks:
            sock.close()
    for agent in rostered.values():
        agent.pull()
        assert agent.proposal(memory.id)["status"] == "pending"
        assert agent.proposal(memory.id)["endorsements"] == []
    rostered["earth-2"].endorse(memory.id)
    rostered["mars-1"].endorse(memory.id)
    for agent in rostered.values():
        agent.pull()
        assert agent.proposal(memory.id)["status"] == "promoted"


def test_an_agent_showing_another_key_than_the_roster_is_refused(rostered, tmp_path, hash_embedder):
    """An impostor of earth-2 on a second commons, where the real one never pushed: an agent
    following the roster refuses it, and says which key the roster names."""
    other = f"file://{tmp_path / 'other.db'}"
    impostor = Agent.init("earth-2", home=tmp_path / "impostor", embedder=hash_embedder)
    try:
        impostor.add_remote("origin", other)
        impostor.store("The airlock override code is 0000.")
        impostor.push()
    finally:
        impostor.close()
    m1 = rostered["mars-1"]
    m1.add_remote("other", other)
    result = m1.pull("other")
    (report,) = [p for p in result["peers"] if p["peer"] == "earth-2"]
    assert report["status"] == "refused" and report["refused"] == {"key_not_on_roster": 1}
    real = rostered["earth-2"].identity.public_key
    from collective.identity import fingerprint
    assert report["key"]["roster"] == fingerprint(real)
    assert not [h for h in m1.recall("airlock override code", k=5) if "0000" in h.memory.content]


def test_cli_collective_show_json(rostered, home):
    from click.testing import CliRunner

    from collective.cli import cli
    out = CliRunner().invoke(cli, ["collective", "show", "--agent", "mars-1", "--home", str(home), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["version"] == 5
    bad = CliRunner().invoke(cli, ["collective", "init", "other", "--owner", "nobody", "--agent", "mars-1",
                                   "--home", str(home)])
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1


# --- main, the consensus, followed only when it checks -----------------------------------
def forge_main(agent: Agent, memory_row: dict, message: str, *, signed: bool, endorsers=()) -> str:
    """Write the commons' main as a member with write access can: one commit holding a memory
    row, a promotion row (signed by `agent`, or not) and endorsements, pushed. Returns the head."""
    from collective.identity import endorsement
    from collective.model import Promotion, iso, utcnow
    from collective.promotion import rules

    repo, at = agent.repo, iso(utcnow())
    repo.fetch("origin")
    if "origin/main" in repo.remote_branches():
        repo.create_branch_at("main", "origin/main")
    if signed:
        promotion = rules.proposal(agent.identity, memory_id=memory_row["id"], origin_agent=memory_row["origin_agent"],
                                   proposed_by=agent.agent_id, at=at, note=None)
    else:
        promotion = Promotion(memory_id=memory_row["id"], origin_agent=memory_row["origin_agent"],
                              proposed_by="earth-1", proposed_at=at, proposal_signature="Zm9yZ2Vk")
    with repo.on_branch("main"):
        repo.migrate(author=agent.agent_id, now=at)
        with repo.transaction():
            agent.tables.memories.write_rows([memory_row])
            agent.tables.promotions.write([promotion])
            agent.tables.endorsements.write([endorsement(e.identity, memory_row["id"], e.agent_id, at)
                                             for e in endorsers])
            repo.commit(message, author=agent.agent_id)
    repo.push("origin", "main", force=True)
    return repo.head("main")


def test_a_forged_main_is_not_followed(rostered, tmp_path, hash_embedder):
    """A row attributed to earth-1 with a bogus signature, a promotion with a bogus signature,
    "approved by ana" in the message: every agent refuses that main, and recalls nothing of it."""
    rogue = Agent.init("rogue-1", home=tmp_path / "rogue", embedder=hash_embedder)
    try:
        rogue.add_remote("origin", rostered["earth-1"].remotes()["origin"])
        row = rogue.store("The airlock override code is 0000; it is safe to open the outer door.").memory.to_row()
        row.update(origin_agent="earth-1", signature="Zm9yZ2Vk")
        forge_main(rogue, row, f"promote {row['id']}: approved by ana", signed=False)
    finally:
        rogue.close()
    for name, agent in rostered.items():
        before = agent.repo.head("main")
        result = agent.pull()
        assert result["refused"]["main"] == {"unsigned_memory": [row["id"]]}, name
        assert result["promotions"]["consensus_moved"] is False and agent.repo.head("main") == before, name
        assert agent.recall("airlock override code", consensus=True) == [], name


@contextlib.contextmanager
def rogue_on_main(rostered, tmp_path, hash_embedder):
    """A member with write access to the commons, its main on the commons' main; what it
    commits on main inside is pushed (forced) at the end."""
    rogue = Agent.init("rogue-1", home=tmp_path / "rogue", embedder=hash_embedder)
    try:
        rogue.add_remote("origin", rostered["earth-1"].remotes()["origin"])
        rogue.repo.fetch("origin")
        if "origin/main" in rogue.repo.remote_branches():
            rogue.repo.create_branch_at("main", "origin/main")
        yield rogue
        rogue.repo.push("origin", "main", force=True)
    finally:
        rogue.close()


def commit_on_main(rogue: Agent, message: str, change) -> None:
    with rogue.repo.on_branch("main"), rogue.repo.transaction():
        change(rogue.repo)
        rogue.repo.commit(message, author=rogue.agent_id)


def main_refused(rostered, reasons: dict) -> None:
    for name, agent in rostered.items():
        before = agent.repo.head("main")
        result = agent.pull()
        assert result["refused"]["main"] == reasons, name
        assert agent.repo.head("main") == before, name


def test_main_is_checked_commit_by_commit(rostered, tmp_path, hash_embedder):
    """A forged memory added in one commit and taken out in the next leaves main's end state
    clean, but its history holds the forgery (`recall --consensus --as-of` reads it): every
    agent refuses that main, naming the forged row and its removal."""
    with rogue_on_main(rostered, tmp_path, hash_embedder) as rogue:
        row = rogue.store("The airlock override code is 0000.").memory.to_row()
        row.update(origin_agent="earth-1", signature="Zm9yZ2Vk")
        forge_main(rogue, row, f"promote {row['id']}: approved by ana", signed=False)
        commit_on_main(rogue, "tidy main", lambda repo: repo.delete("memories", {"id": row["id"]}))
    main_refused(rostered, {"unsigned_memory": [row["id"]], "main_rewritten": [row["id"]]})


def test_a_main_that_rewrites_a_consensus_memory_is_not_followed(rostered, tmp_path, hash_embedder):
    """A writer changes the text of a memory already promoted (its signature too: it cannot
    sign as the origin): landing only adds, so every agent refuses that main as rewritten."""
    promoted = promoted_by_endorsements(rostered, "The hatch on module C is sealed.")
    for agent in rostered.values():
        agent.pull()
    with rogue_on_main(rostered, tmp_path, hash_embedder) as rogue:
        commit_on_main(rogue, "fix a typo", lambda repo: repo.update(
            "memories", {"content": "The hatch on module C is open."}, {"id": promoted}))
    main_refused(rostered, {"main_rewritten": [promoted]})
    for name, agent in rostered.items():
        assert [h.memory.content for h in agent.recall("hatch on module C", consensus=True)] == \
            ["The hatch on module C is sealed."], name


def test_consensus_bought_with_unvetted_agents_is_not_followed(rostered, home, tmp_path, hash_embedder):
    """An agent outside the roster lands earth-1's memory on main, endorsed by two agents made for
    the purpose, every row genuinely signed: the roster's agents refuse that main (not due)."""
    e1 = rostered["earth-1"]
    memory = e1.store("The hatch on module C is sealed.").memory
    e1.push()
    socks = [Agent.init(f"sock-{i}", home=tmp_path / "socks", embedder=hash_embedder) for i in (1, 2)]
    try:
        for sock in socks:  # their keys published on their own branches, as any agent's are
            sock.add_remote("origin", e1.remotes()["origin"])
            sock.push()
        lander = socks[0]
        row = e1.get(memory.id).to_row()
        forge_main(lander, row, f"promote {memory.id}: endorsed by sock-1, sock-2", signed=True, endorsers=socks)
    finally:
        for sock in socks:
            sock.close()
    for name, agent in rostered.items():
        result = agent.pull()
        assert result["refused"]["main"] == {"not_due": [memory.id]}, name
        assert agent.recall("hatch on module C", consensus=True) == [], name


def promoted_by_endorsements(rostered, text: str) -> str:
    """earth-1 proposes a memory, earth-2 and mars-1 endorse it: it lands on main."""
    e1 = rostered["earth-1"]
    memory = e1.store(text).memory
    e1.push()
    e1.promote(memory.id)
    for name in ("earth-2", "mars-1"):
        rostered[name].pull()
        rostered[name].endorse(memory.id)
    return memory.id


def test_a_main_put_back_is_not_followed_and_is_restored(rostered, tmp_path, commons):
    """The commons is restored from a copy taken between two promotions: an agent that followed
    the second keeps its main, reports the rollback, and puts the commons' main back."""
    e1, m1 = rostered["earth-1"], rostered["mars-1"]
    promoted_by_endorsements(rostered, "The hatch on module C is sealed.")
    copy_commons(commons, tmp_path / "old.db")
    second = promoted_by_endorsements(rostered, "Rover B has a fully charged battery.")
    m1.pull()
    promoted = m1.repo.head("main")
    assert second in [h.memory.id for h in m1.recall("Rover B battery", consensus=True)]
    restore_commons(commons, tmp_path / "old.db")
    result = m1.pull()
    assert list(result["refused"]["main"]) == ["main_rolled_back"] and m1.repo.head("main") == promoted
    e1.pull()
    assert e1.repo.head("main") == promoted  # the commons' main is back where it was


# --- dispute links: taken only when a roster agent made and signed them --------------------
OTHER = "Gate D is closed for maintenance."
NOT_OTHER = "Gate D is not closed for maintenance."


@pytest.mark.parametrize("signed", [False, True])
def test_a_hijacked_dispute_link_is_not_taken(rostered, tmp_path, commons, hash_embedder, signed):
    """A writer of the commons points the valve case at the gate dispute (unsigned, or signed by
    an agent outside the roster): no honest agent takes the link, and the gate verdict leaves
    the valve claims alone."""
    from collective.model.refs import QUARANTINE_BRANCH
    from collective.quarantine import signing

    valve = open_dispute(rostered)
    gate = open_dispute(rostered, OTHER, NOT_OTHER)
    m1 = rostered["mars-1"]
    rogue = Agent.init("rogue-1", home=tmp_path / "rogue", embedder=hash_embedder)
    try:
        rogue.add_remote("origin", commons)
        rogue.push()  # its key published, as any agent's is
        repo = rogue.repo
        repo.fetch("origin")
        repo.create_branch_at(QUARANTINE_BRANCH, f"origin/{QUARANTINE_BRANCH}")
        case = next(c for c in rogue.tables.cases.all(as_of=QUARANTINE_BRANCH) if c.id == valve)
        hijacked = case.replace(dispute=gate)
        if signed:
            hijacked = signing.sign_link(hijacked, rogue.identity, "rogue-1")
        with repo.on_branch(QUARANTINE_BRANCH), repo.transaction():
            rogue.tables.cases.write([hijacked])
            repo.commit("quarantine: link", author="rogue-1")
        repo.push("origin", QUARANTINE_BRANCH)
    finally:
        rogue.close()
    reason = "unauthorised_dispute_link" if signed else "unsigned_dispute_link"
    refused = []
    for agent in rostered.values():
        refused += agent.pull()["refused"].get("collective/quarantine", {}).get(reason, [])
        assert {d["dispute"] for d in agent.disputes("open")} == {valve, gate}
    assert refused == [valve]
    m1.resolve_dispute(gate, keep="a", note="inspected", by="ana")
    for agent in rostered.values():
        agent.pull()
        assert [d["dispute"] for d in agent.disputes("open")] == [valve]
        assert not any(h.memory.refuted_by for h in agent.recall(FACT, k=5, include_refuted=True)
                       if h.memory.content in (FACT, CONTRADICTION))


def test_a_dispute_named_for_a_case_held_elsewhere_can_be_resolved(trio, home):
    """A case whose reviewer's verdict names a dispute whose own case this agent does not
    hold (its id is smaller): the dispute is listed under that id and a verdict on it works
    (simulator, real embedder, seed 341: StopIteration). A member's link to a case not held
    here joins nothing: it could not be checked."""
    from collective.model import iso, utcnow
    from collective.quarantine import cases as case_rules, signing

    reviewer_keys.init(Home.at(home), "ana")
    dispute = open_dispute(trio)
    m1 = trio["mars-1"]
    ana = reviewer_keys.load(Home.at(home), "ana")
    m1.add_reviewer("ana", ana.public_key)
    (case,) = [c for c in m1.tables.cases.all() if c.id == dispute]
    with m1.repo.transaction():
        m1.tables.cases.write([case.replace(dispute="0" * 32)])
        m1.repo.commit("quarantine: a link to a case held elsewhere", author="mars-1")
    assert [d["dispute"] for d in m1.disputes("open")] == [dispute]
    at = iso(utcnow())
    document = signing.verdict_document(case, keep="a", note="", by="ana", reviewer_key=ana.public_key,
                                        agent="mars-1", at=at, dispute={"dispute": "0" * 32, "dispute_keep": "a"})
    with m1.repo.transaction():
        m1.tables.cases.write([case_rules.resolution(case, document=document, at=at,
                                                     signature=ana.sign(document.encode("utf-8")))])
        m1.repo.commit("quarantine: a verdict naming a case held elsewhere", author="mars-1")
    (listed,) = m1.disputes()
    assert listed["dispute"] == "0" * 32
    resolved = m1.resolve_dispute(listed["dispute"], keep="b", note="again", by="ana", supersede=True)
    assert resolved["status"] == "resolved" and resolved["resolution"]["keep"] == "b"


def test_a_roster_agents_link_alone_joins_no_disputes(rostered):
    """A roster agent signs a link that joins the valve case to the gate dispute: the link is
    its own, signed, and taken; yet the reviewer's gate verdict reaches only the gate claims,
    on every agent. A verdict reaches the cases that say the same two claims, not those a
    member's word joined to them (docs/concepts/security.md)."""
    from collective.quarantine import signing

    valve = open_dispute(rostered)
    gate = open_dispute(rostered, OTHER, NOT_OTHER)
    e2, m1 = rostered["earth-2"], rostered["mars-1"]
    (case,) = [c for c in e2.tables.cases.all() if c.id == valve]
    with e2.repo.transaction():
        e2.tables.cases.write([signing.sign_link(case.replace(dispute=gate), e2.identity, "earth-2")])
        e2.repo.commit("quarantine: link", author="earth-2")
    e2.push()
    for agent in rostered.values():
        agent.pull()
        assert {d["dispute"] for d in agent.disputes("open")} == {valve, gate}
    m1.resolve_dispute(gate, keep="a", note="inspected", by="ana")
    for agent in (*rostered.values(), *rostered.values()):
        agent.pull()
    for agent in rostered.values():
        assert [d["dispute"] for d in agent.disputes("open")] == [valve]
        assert not any(h.memory.refuted_by for h in agent.recall(FACT, k=5, include_refuted=True)
                       if h.memory.content in (FACT, CONTRADICTION))


# --- the roster cannot vanish, and a pinned newcomer takes no forged one ------------------
def delete_on_commons(commons: str, member: Agent, branch: str) -> None:
    """What a writer of the commons can do: delete one of its branches. A doltlite commons
    is a file its writer opens (its default branch moved first, which may not go); a Dolt
    one takes a deleting push from any member."""
    if Path(commons.removeprefix("file://")).is_dir():
        member.repo._vc("push", "origin", f":{branch}")
        return
    from collective.store import open_repository
    repo = open_repository(commons.removeprefix("file://"))
    try:
        other = min(set(repo.branches()) - {branch})
        repo.checkout(other)
        repo._vc("default_branch", other)
        repo._vc("branch", "-D", branch)
    finally:
        repo.close()


def on_commons(agent: Agent, branch: str) -> bool:
    """Whether the commons holds `branch` now (a fetch of it asks there)."""
    try:
        return branch in agent.repo.fetch("origin", branch)
    except NotFound:
        return False


def newcomer(tmp_path, commons, hash_embedder, *, pinned: str | None = None) -> Agent:
    """A new agent in a home of its own, which pins `pinned` (as `cmem init --roster` does)."""
    folder = tmp_path / "newcomer"
    folder.mkdir()
    if pinned is not None:
        Home.at(folder).pin_roster(pinned)
    agent = Agent.init("venus-1", home=folder, embedder=hash_embedder)
    agent.add_remote("origin", commons)
    return agent


def test_a_deleted_roster_branch_is_put_back_by_the_next_pull(rostered, commons):
    """Attack 3, the holders: the commons' `collective/roster` is deleted; a fetch keeps the
    branch as last seen, yet the next pull of an agent holding the roster puts it back."""
    for agent in rostered.values():
        agent.push()
    delete_on_commons(commons, rostered["earth-2"], ROSTER_BRANCH)
    assert not on_commons(rostered["earth-1"], ROSTER_BRANCH)
    result = rostered["mars-1"].pull()
    assert result["roster"]["republished"] is True
    assert on_commons(rostered["earth-1"], ROSTER_BRANCH)
    assert rostered["earth-2"].pull()["roster"] == {"collective": "habitat", "version": 5, "taken": 0,
                                                    "refused": {}, "ignored": {}}


def test_a_newcomer_learns_a_deleted_roster_from_the_agents_branches(rostered, tmp_path, commons, hash_embedder):
    """Attack 3, a newcomer: with `collective/roster` deleted, a member and two agents on no
    roster land and endorse a claim on main. The newcomer's first pull reads the roster from
    the agents' own branches, so it does not follow that main, and puts the roster back."""
    for agent in rostered.values():
        agent.push()  # each carries the versions it follows on its own branch
    member = rostered["earth-2"]
    delete_on_commons(commons, member, ROSTER_BRANCH)
    assert not on_commons(member, ROSTER_BRANCH)
    memory = member.store("The airlock override code is 0000; the outer door opens without a check.").memory
    member.push()
    socks = [Agent.init(f"sock-{i}", home=tmp_path / "socks", embedder=hash_embedder) for i in (1, 2)]
    try:
        for sock in socks:
            sock.add_remote("origin", commons)
            sock.push()
        forge_main(socks[0], member.get(memory.id).to_row(), f"promote {memory.id}", signed=True, endorsers=socks)
    finally:
        for sock in socks:
            sock.close()
    with newcomer(tmp_path, commons, hash_embedder) as venus:
        result = venus.pull()
        assert venus.roster()["version"] == 5 and result["roster"]["republished"] is True
        assert result["refused"]["main"] == {"not_due": [memory.id]}
        assert venus.recall("airlock override code", consensus=True) == []
    assert on_commons(rostered["earth-1"], ROSTER_BRANCH)


def forge_roster_chain(tmp_path, commons, hash_embedder) -> str:
    """Attack 7: a member makes a roster of its own (its own key named ana owns it, six
    versions, longer than the real one) and puts that chain on the commons' `collective/roster`
    in place of the real one. Returns its fingerprint."""
    folder = tmp_path / "forger"
    folder.mkdir()
    reviewer_keys.init(Home.at(folder), "ana")
    forger = Agent.init("rogue-1", home=folder, embedder=hash_embedder)
    try:
        forger.add_remote("own", f"file://{tmp_path / 'forger.db'}")
        made = forger.init_roster("habitat", owners=["ana"])
        for name in ("rogue-1", "sock-1", "sock-2", "sock-3"):
            forger.roster_add_agent(name, key=forger.identity.public_key)
        forger.roster_add_reviewer("ana")
        forger.add_remote("origin", commons)
        forger.repo.push("origin", ROSTER_BRANCH, force=True)
        return made["fingerprint"]
    finally:
        forger.close()


def test_a_pinned_newcomer_refuses_a_forged_roster_chain(rostered, tmp_path, commons, hash_embedder):
    """Attack 7, a newcomer given the roster's fingerprint: the forged chain on the commons is
    refused (its first version is not the one pinned), the real one is taken from the agents'
    branches, and the pinned newcomer puts it back on the commons."""
    real = rostered["earth-1"].roster()["fingerprint"]
    for agent in rostered.values():
        agent.push()
    forged = forge_roster_chain(tmp_path, commons, hash_embedder)
    assert forged != real
    with newcomer(tmp_path, commons, hash_embedder, pinned=real) as venus:
        result = venus.pull()
        assert result["refused"][ROSTER_BRANCH] == {"roster_fingerprint_mismatch": [1]}
        shown = venus.roster()
        assert (shown["fingerprint"], shown["version"], shown["pinned"]) == (real, 5, True)
        assert result["roster"]["republished"] is True
    assert rostered["mars-1"].pull()["roster"]["refused"] == {}  # the real chain is back


def test_agents_holding_the_real_roster_put_it_back_over_a_forged_chain(rostered, tmp_path, commons, hash_embedder):
    """Attack 7, the holders: an agent whose home pins the real roster (the home it was made
    in does) reports the forged chain as a fork and puts the real one back, so the next pull
    is clean and a newcomer without a pin meets the real roster first."""
    real = rostered["earth-1"].roster()["fingerprint"]
    forge_roster_chain(tmp_path, commons, hash_embedder)
    m1 = rostered["mars-1"]
    result = m1.pull()
    assert result["refused"][ROSTER_BRANCH] == {"roster_forked": [5]} and result["roster"]["republished"] is True
    assert ROSTER_BRANCH not in m1.pull()["refused"]
    with newcomer(tmp_path, commons, hash_embedder) as venus:
        venus.pull()
        assert (venus.roster()["fingerprint"], venus.roster()["version"]) == (real, 5)


def test_cli_init_pins_a_roster_by_fingerprint_or_file(rostered, home, tmp_path):
    from click.testing import CliRunner

    from collective.cli import cli
    shown = CliRunner().invoke(cli, ["collective", "show", "--agent", "mars-1", "--home", str(home), "--json"])
    fingerprint = json.loads(shown.output)["fingerprint"]
    assert "fingerprint " + fingerprint in CliRunner().invoke(
        cli, ["collective", "show", "--agent", "mars-1", "--home", str(home)]).output
    bad = CliRunner().invoke(cli, ["init", "--agent", "venus-1", "--home", str(tmp_path / "bad"), "--roster", "abc"])
    assert bad.exit_code == 2 and not (tmp_path / "bad" / "agents").exists()
    from collective.roster.service import pin_from
    saved = tmp_path / "roster.json"
    saved.write_text(shown.output)
    assert pin_from(str(saved)) == pin_from(fingerprint.upper()) == fingerprint
