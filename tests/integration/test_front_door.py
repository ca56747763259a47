"""One front door: a verb offered by Python (the Agent), the CLI (`cmem ... --json`) and the
MCP server (its tools) does the same work and returns the same shape from each."""

from __future__ import annotations

import json
import pytest
from click.testing import CliRunner

from collective.agent import Agent
from collective.cli import cli
from collective.mcp.brief import keys_text
from collective.mcp.tools import MemoryTools
from collective.reports import (CommitRecord, DecidedDispute, DisputeReport, DreamReport, ForgetReport, Judgement,
                                KeyRotation, ListReport, PeerReport, Proposal, ProposalReport, PullReport, PushReport,
                                RecallReport, ShowReport, StabilityReport, StatusReport, StoreReport, SyncWindowReport,
                                TrustLedger, UpdateReport, mismatches, plain, shape_text)
from collective.sync.windows import scheduler

from tests.integration.dream_helpers import store_topics

RECEIVERS = ("python-1", "cli-1", "mcp-1")
READ_REPORTS = {"recall": RecallReport, "list": ListReport, "log": CommitRecord, "stability": StabilityReport,
                "judge": Judgement, "disputes": DisputeReport, "peers": PeerReport}
REPORTS = {"pull": PullReport, "push": PushReport, "status": StatusReport}


@pytest.fixture
def collective(home, tmp_path, real_embedder):
    """earth-1, which stored two topics, dreamed and pushed (its dream branch too), and
    three receivers that have not pulled yet; all on one file commons."""
    url = f"file://{tmp_path / 'commons.db'}"
    agents = {name: Agent.init(name, home=home, embedder=real_embedder) for name in ("earth-1", *RECEIVERS)}
    try:
        for agent in agents.values():
            agent.add_remote("origin", url)
        earth = agents["earth-1"]
        store_topics(earth, topics=2, per=4)
        earth.push()
        assert earth.dream()["shared"]["pushed"]
        earth.push()
        yield agents
    finally:
        for agent in agents.values():
            agent.close()


def through_each_door(agents: dict[str, Agent], cmem, verb: str, *cli_args: str) -> dict[str, dict]:
    """The verb's result on each receiver, each through another door."""
    python = plain(getattr(agents["python-1"], verb)())
    done = cmem(verb, *cli_args, "--agent", "cli-1", "--json")
    assert done.exit_code == 0, done.output
    tool = getattr(MemoryTools(agents["mcp-1"]), verb)
    # in detail, as the others are (a pull's default answer is its counts: test_mcp_session.py)
    mcp = tool(detail=True) if verb == "pull" else tool()
    return {"python": python, "cli": json.loads(done.stdout), "mcp": mcp}


def shape(value, depth: int = 2):
    """The keys of a JSON object, and of the objects it holds, `depth` levels down."""
    if isinstance(value, dict):
        return {k: shape(v, depth - 1) for k, v in value.items()} if depth else sorted(value)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [shape(value[0], depth)]
    return type(value).__name__ if value is not None else None


def test_a_pull_does_the_same_work_and_returns_the_same_shape_from_every_door(collective, cmem):
    results = through_each_door(collective, cmem, "pull")
    shapes = {door: shape(r) for door, r in results.items()}
    assert shapes["python"] == shapes["cli"] == shapes["mcp"], shapes
    for door, result in results.items():  # the shape every door documents (collective/reports.py)
        assert mismatches(result, PullReport) == [], door
    work = {door: ([(p["peer"], p["summary"]["new"]) for p in r["peers"]],
                   [(run["peer"], run["imported"], run.get("syntheses")) for run in r["dreams"]["runs"]])
            for door, r in results.items()}
    assert work["python"] == work["cli"] == work["mcp"], work
    (peer, new), = work["python"][0]
    assert peer == "earth-1" and new == 10  # eight memories and the dream's two syntheses, merged
    # and the dream's artifacts imported on every door (its syntheses came with the pull already)
    assert work["python"][1] == [("earth-1", True, 0)]


@pytest.mark.parametrize("verb", ["status", "push"])
def test_other_verbs_return_the_same_shape_from_every_door(collective, cmem, verb):
    results = through_each_door(collective, cmem, verb)
    shapes = {door: shape(r, depth=1) for door, r in results.items()}
    assert shapes["python"] == shapes["cli"] == shapes["mcp"], shapes
    for door, result in results.items():
        assert mismatches(result, REPORTS[verb]) == [], door


def test_a_dry_run_pull_has_the_documented_shape_too(collective, cmem):
    """Every key on every path: a dry run names what it did not do (null), as the docs say."""
    python = plain(collective["python-1"].pull(dry_run=True))
    done = cmem("pull", "--dry-run", "--agent", "cli-1", "--json")
    mcp = MemoryTools(collective["mcp-1"]).pull(dry_run=True, detail=True)
    for door, result in {"python": python, "cli": json.loads(done.stdout), "mcp": mcp}.items():
        assert mismatches(result, PullReport) == [], door
        assert result["dry_run"] and result["quarantine"] is None and result["dreams"] is None, door


# command -> (the shape it returns, the MCP tool that returns it too, or None; memory_pull answers
# with counts unless asked for detail, and documents that shape)
DOCUMENTED = {
    ("pull",): (PullReport, None), ("push",): (PushReport, "push"), ("status",): (StatusReport, "status"),
    ("store",): (StoreReport, "store"), ("recall",): (RecallReport, "recall"), ("list",): (ListReport, "list_memories"),
    ("show",): (ShowReport, "show"), ("forget",): (ForgetReport, "forget"), ("update",): (UpdateReport, "update"),
    ("log",): (CommitRecord, None), ("judge",): (Judgement, "judge"), ("dream",): (DreamReport, "dream"),
    ("promote",): (ProposalReport, "promote"), ("endorse",): (ProposalReport, "endorse"),
    ("promotions", "list"): (Proposal, None), ("agents",): (PeerReport, None), ("trust",): (TrustLedger, "trust"),
    ("key", "rotate"): (KeyRotation, "rotate_key"), ("sync", "once"): (SyncWindowReport, "sync"),
    ("quarantine", "show"): (DisputeReport, None), ("quarantine", "resolve"): (DecidedDispute, None),
}


def test_each_door_documents_the_shape_it_returns(cmem):
    """The CLI's help (and so the CLI reference, written from it and kept fresh by its own
    test) and the MCP tools' descriptions show the shape each verb returns, written from one
    place: the CLI in full, MCP as the keys of its compact answer (the tokens a model pays for)."""
    for command, (report, tool) in DOCUMENTED.items():
        written = " ".join(shape_text(report).split())
        helped = CliRunner().invoke(cli, [*command, "--help"]).output
        assert written in " ".join(helped.split()), command
        if tool is not None:
            assert f"Returns {keys_text(report)}" in " ".join(getattr(MemoryTools, tool).__doc__.split()), command


def test_the_memory_verbs_return_the_same_shape_from_every_door(collective, cmem):
    """store, show, update and forget, each receiver on its own memory, through its own door."""
    text = "The greenhouse pump in module D runs at night."
    python_agent, mcp = collective["python-1"], MemoryTools(collective["mcp-1"])
    stored = {"python": plain(python_agent.store(text)), "mcp": mcp.store(text, detail=True)}
    done = cmem("store", text, "--agent", "cli-1", "--json")
    assert done.exit_code == 0, done.output
    stored["cli"] = json.loads(done.stdout)
    ids = {door: r["id"] for door, r in stored.items()}
    shown = {"python": plain(python_agent.show(ids["python"])), "mcp": mcp.show(ids["mcp"]),
             "cli": json.loads(cmem("show", ids["cli"], "--agent", "cli-1", "--json").stdout)}
    fixed = "The greenhouse pump in module D runs in the day."
    updated = {"python": plain(python_agent.update(ids["python"], fixed)), "mcp": mcp.update(ids["mcp"], fixed),
               "cli": json.loads(cmem("update", ids["cli"], fixed, "--agent", "cli-1", "--json").stdout)}
    ids = {door: r["id"] for door, r in updated.items()}
    forgot = {"python": plain(python_agent.forget(ids["python"])), "mcp": mcp.forget(ids["mcp"]),
              "cli": json.loads(cmem("forget", ids["cli"], "--agent", "cli-1", "--json").stdout)}
    for verb, results, report in (("store", stored, StoreReport), ("show", shown, ShowReport),
                                  ("update", updated, UpdateReport), ("forget", forgot, ForgetReport)):
        shapes = {door: shape(r, depth=1) for door, r in results.items()}
        assert shapes["python"] == shapes["cli"] == shapes["mcp"], (verb, shapes)
        assert all(mismatches(r, report) == [] for r in results.values()), verb


def _element(result):
    """A list's first item; the MCP tools wrap a list under one key ({"disputes": [...]})."""
    if isinstance(result, dict) and len(result) == 1 and isinstance(next(iter(result.values())), list):
        result = next(iter(result.values()))
    return result[0] if isinstance(result, list) and result else result


def test_the_reading_verbs_return_the_same_shape_from_every_door(collective, cmem):
    """recall, list, log, stability, judge, disputes and peers: each receiver pulled first, so
    each holds the same memories; the MCP tools wrap a list under one key."""
    for name in RECEIVERS:
        collective[name].pull()
    calls = {  # verb: (Python, CLI arguments, MCP); MCP in detail, as the others are
        "recall": (lambda a: a.recall("pump module", k=3), ("recall", "pump module", "-k", "3"),
                   lambda t: t.recall("pump module", k=3, detail=True)),
        "list": (lambda a: a.list_memories(limit=3), ("list", "--limit", "3"),
                 lambda t: t.list_memories(limit=3, detail=True)),
        "log": (lambda a: a.log(2), ("log", "-n", "2"), lambda t: t.log(2)),
        "stability": (lambda a: a.stability(), ("status",), lambda t: t.stability()),
        "judge": (lambda a: a.compare("Valve 7 is open.", "Valve 7 is not open."),
                  ("judge", "Valve 7 is open.", "Valve 7 is not open."),
                  lambda t: t.judge("Valve 7 is open.", "Valve 7 is not open.")),
        "disputes": (lambda a: a.disputes(None), ("quarantine", "list"),
                     lambda t: {"disputes": t.disputes(None, detail=True)["disputes"]}),  # a page
        "peers": (lambda a: a.peers(), ("agents",), lambda t: {"peers": t.peers()["peers"]}),  # a page
    }
    for verb, (python, cli_args, mcp) in calls.items():
        done = CliRunner().invoke(cli, [*cli_args, "--json"]) if verb == "judge" else \
            cmem(*cli_args, "--agent", "cli-1", "--json")  # judge reads no agent
        assert done.exit_code == 0, (verb, done.output)
        printed = json.loads(done.stdout)
        if verb == "stability":  # the CLI shows it within status
            printed = {"stability": printed["stability"], "memories": None}
        results = {"python": plain(python(collective["python-1"])), "cli": printed,
                   "mcp": mcp(MemoryTools(collective["mcp-1"]))}
        shapes = {door: shape(_element(r), depth=1) for door, r in results.items()}
        if verb == "stability":
            shapes = {door: sorted(s) for door, s in shapes.items()}
        assert shapes["python"] == shapes["cli"] == shapes["mcp"], (verb, shapes)
        if verb in READ_REPORTS:
            strays = {door: mismatches(_element(r), READ_REPORTS[verb]) for door, r in results.items()
                      if not (verb == "stability" and door == "cli") and _element(r) != []}
            assert all(found == [] for found in strays.values()), (verb, strays)


def test_the_collective_verbs_return_their_documented_shape_from_every_door(collective, cmem):
    """sync (one window), promote, endorse, dream and key rotation: each receiver through its
    own door; what each returns keeps to its report."""
    earth = collective["earth-1"]
    proposals = [m["id"] for m in earth.list_memories(limit=len(RECEIVERS))["memories"]]
    for memory_id in proposals:  # one each: two endorsements would promote it
        earth.promote(memory_id)
    doors = {
        "python": lambda agent, verb, *args: plain(getattr(agent, verb)(*args)),
        "mcp": lambda agent, verb, *args: getattr(MemoryTools(agent), verb)(*args),
    }
    commands = {"sync": ("sync", "once"), "endorse": ("endorse",), "promote": ("promote",),
                "dream": ("dream",), "rotate_key": ("key", "rotate")}
    reports = {"sync": SyncWindowReport, "endorse": ProposalReport, "promote": ProposalReport,
               "dream": DreamReport, "rotate_key": KeyRotation}
    for name, proposed in zip(RECEIVERS, proposals):
        agent = collective[name]
        door = "cli" if name == "cli-1" else "python" if name == "python-1" else "mcp"
        own = agent.store(f"{name} keeps the spare filters in locker {len(name)}.").memory.id
        for verb, args in (("sync", ()), ("endorse", (proposed,)), ("promote", (own,)), ("dream", ()),
                           ("rotate_key", ())):
            if door == "cli":
                done = cmem(*commands[verb], *args, "--agent", name, "--json")
                assert done.exit_code == 0, (verb, done.output)
                result = json.loads(done.stdout)
            elif door == "python" and verb == "sync":
                result = plain(scheduler(agent.sync_port()).once())
            else:
                result = doors[door](agent, verb, *args)
            assert mismatches(result, reports[verb]) == [], (door, verb, result)
        assert agent.proposal(proposed)["endorsements"] == [name], door
