"""`cmem mcp` as an MCP client meets it: a subprocess spoken to over stdio with the
`mcp` package's own client, on agents with the real embedder."""

from __future__ import annotations

import contextlib
import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any, AsyncIterator

import anyio
import pytest
from typing_extensions import get_type_hints

from collective.mcp.brief import DisputesPage, PullBrief
from collective.mcp.wording import in_tool_words
from collective.reports import (DecidedDispute, DreamReport, Judgement, ListReport, PeersReport, ProposalReport,
                                PushReport, RecallHitReport, RecallReport, StatusReport, StoreReport, SyncWindowReport,
                                TrustLedger, mismatches)
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CMEM = str(Path(sys.executable).parent / "cmem")
TOOLS = {"memory_store", "memory_update", "memory_challenge", "memory_recall", "memory_list", "memory_show", "memory_forget", "memory_status",
         "memory_push", "memory_pull", "memory_disputes", "memory_dispute", "memory_promote", "memory_endorse"}
OPERATOR = {"memory_log", "memory_sync", "memory_rotate_key", "memory_peers", "memory_trust", "memory_dream",
            "memory_stability", "memory_judge"}

TYPED = {"memory_pull": PullBrief, "memory_push": PushReport, "memory_status": StatusReport,
         "memory_store": StoreReport, "memory_recall": RecallReport, "memory_list": ListReport,
         "memory_sync": SyncWindowReport, "memory_promote": ProposalReport, "memory_dream": DreamReport,
         "memory_peers": PeersReport, "memory_trust": TrustLedger, "memory_judge": Judgement,
         "memory_disputes": DisputesPage}


@contextlib.asynccontextmanager
async def served(home: Path, agent_id: str, *, reviewer: str | None = None,
                 operator: bool = False) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=CMEM, args=["mcp", "--agent", agent_id, "--home", str(home),
                                                       *(["--reviewer", reviewer] if reviewer else []),
                                                       *(["--operator"] if operator else [])])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict:
    """A tool's result, which must be no error and the same JSON in text and structure."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    assert "\n" not in result.content[0].text  # compact: the model pays for every token
    return result.structured_content


def run(scenario, *args) -> None:
    async def bounded():
        with anyio.fail_after(180):
            await scenario(*args)
    anyio.run(bounded)


@pytest.fixture
def agents(request, home, cmem, tmp_path):
    """earth-1 and mars-1 (the real embedder), both with a file commons as origin: a doltlite
    file, or a folder for agents on Dolt (tests that use the `engine` fixture run on both)."""
    on_dolt = "engine" in request.fixturenames and request.getfixturevalue("engine") == "dolt"
    commons = f"file://{tmp_path / ('commons' if on_dolt else 'commons.db')}"
    for agent_id in ("earth-1", "mars-1"):
        assert cmem("init", "--agent", agent_id).exit_code == 0
        assert cmem("remote", "add", "origin", commons, "--agent", agent_id).exit_code == 0
    return home


def test_lists_every_tool_with_a_schema_and_a_documented_result(agents):
    async def scenario():
        async with served(agents, "earth-1") as session:
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
        async with served(agents, "earth-1", operator=True) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS | OPERATOR
        assert all("Returns" in t.description for t in tools.values())
        assert not any("\n    " in t.description or "stddev" in t.description for t in tools.values())
        undescribed = [(t.name, arg) for t in tools.values() for arg, field in t.input_schema["properties"].items()
                       if not field.get("description")]
        assert undescribed == []
        recall = tools["memory_recall"]
        assert recall.input_schema["required"] == ["query"]
        assert set(recall.input_schema["properties"]) == {"query", "k", "offset", "as_of", "include_faded", "include_refuted",
                                                          "consensus", "min_score", "tags", "categories", "origins",
                                                          "since", "until", "detail"}
        assert recall.annotations.read_only_hint and not tools["memory_store"].annotations.read_only_hint
        # the output schemas: the keys a typed report (collective/reports/, mcp/brief.py) always has
        for name, report in TYPED.items():
            assert set(tools[name].output_schema["required"]) == report.__required_keys__, name
    run(scenario)


def test_a_keyword_and_a_question_in_other_words_find_their_memories_and_filters_narrow(agents):
    """A one-word query and a question that shares one word with its answer (cosine 0.37) both
    find it; a question about nothing stored names the closest instead; filters and paging."""
    async def scenario():
        async with served(agents, "earth-1") as session:
            pump = await call(session, "memory_store", content="The coolant pump in module C is safe to operate",
                              tags=["hardware"])
            dark = await call(session, "memory_store", content="The user prefers dark mode in every editor",
                              category="social")
            await call(session, "memory_store", content="Lunch is served at noon in the galley")
            assert [h["id"] for h in (await call(session, "memory_recall", query="pump"))["hits"]] == [pump["id"]]
            theme = await call(session, "memory_recall", query="what theme does the user like?")
            assert [h["id"] for h in theme["hits"]][:1] == [dark["id"]]
            hit = theme["hits"][0]  # compact: the id, the text, the score and why
            assert set(hit) == RecallHitReport.__required_keys__ and "meaning" in hit["why"]
            hit = (await call(session, "memory_recall", query="what theme does the user like?", detail=True))["hits"][0]
            assert set(hit) == set(get_type_hints(RecallHitReport))
            assert hit["relevance"] == pytest.approx(0.7 * hit["similarity"] + 0.3 * hit["lexical"] ** 2, abs=1e-5)
            nothing = await call(session, "memory_recall", query="what is the capital of France?")
            assert nothing["hits"] == [] and nothing["closest"] is not None
            assert nothing["closest"]["relevance"] < nothing["min_score"]
            best, *after = [h["id"] for h in (await call(session, "memory_recall", query="pump", k=3))["hits"]]
            paged = await call(session, "memory_recall", query="pump", k=2, offset=1)
            assert [h["id"] for h in paged["hits"]] == after[:2] and best == pump["id"]
            narrowed = await call(session, "memory_recall", query="pump", tags=["hardware"], categories=["knowledge"])
            assert [h["id"] for h in narrowed["hits"]] == [pump["id"]]
            assert (await call(session, "memory_recall", query="pump", categories=["social"]))["hits"] == []
            page = await call(session, "memory_list", limit=2)
            assert page["total"] == 3 and len(page["memories"]) == 2 and page["offset"] == 0
            rest = await call(session, "memory_list", limit=2, offset=2)
            assert len(rest["memories"]) == 1
            assert {m["id"] for m in page["memories"] + rest["memories"]} >= {pump["id"], dark["id"]}
            assert (await call(session, "memory_list", categories=["social"]))["memories"][0]["id"] == dark["id"]
    run(scenario)


def test_stores_recalls_and_recalls_as_of_an_earlier_commit(agents, engine):
    async def scenario():
        async with served(agents, "earth-1", operator=True) as session:
            pump = await call(session, "memory_store", content="The coolant pump on deck 3 is safe to run.",
                              tags=["deck-3"], detail=True)
            seal = await call(session, "memory_store", content="The airlock seal on deck 5 is leaking air.")
            assert pump["tags"] == ["deck-3"] and not pump["deduplicated"] and pump["commit"] != seal["commit"]
            now = await call(session, "memory_recall", query="Is the airlock seal leaking?", k=1)
            assert [h["id"] for h in now["hits"]] == [seal["id"]]
            then = await call(session, "memory_recall", query="Is the airlock seal leaking?", as_of=pump["commit"])
            assert seal["id"] not in [h["id"] for h in then["hits"]]  # not stored yet then
            then = await call(session, "memory_recall", query="Is the pump on deck 3 safe?", as_of=seal["commit"])
            assert [h["id"] for h in then["hits"]][:1] == [pump["id"]]

            assert (await call(session, "memory_show", memory_id=pump["id"]))["content"].startswith("The coolant pump")
            assert (await call(session, "memory_log", limit=2))["commits"][0]["commit"] == seal["commit"]
            status = await call(session, "memory_status")
            assert (status["agent"], status["engine"], status["counts"]["own"]) == ("earth-1", engine, 2)
            stability = await call(session, "memory_stability")
            assert stability["memories"] == 2 and 0 < stability["stability"] <= 1
            forgotten = await call(session, "memory_forget", memory_id=seal["id"])
            assert forgotten["changed"] and (await call(session, "memory_stability"))["memories"] == 1
            verdict = await call(session, "memory_judge", a="EVA 3 starts at 14:00 on Sunday.",
                                 b="EVA 3 starts at 14:00 on Wednesday.")
            assert verdict["relation"] == "destructive"
            assert (await call(session, "memory_disputes"))["disputes"] == []
    run(scenario)


@pytest.mark.usefixtures("engine")
def test_pushes_and_pulls_between_two_agents_through_a_file_commons(agents):
    async def scenario():
        async with served(agents, "earth-1") as earth:
            stored = await call(earth, "memory_store", content="Dust storms on Mars peak in the southern summer.")
            pushed = await call(earth, "memory_push")
            assert pushed["branch"] == "earth-1/working" and pushed["remote"] == "origin"
        async with served(agents, "mars-1") as mars:
            pulled = await call(mars, "memory_pull", remote="origin")
            assert [(p["peer"], p["status"]) for p in pulled["peers"]] == [("earth-1", "merged")]
            hits = (await call(mars, "memory_recall", query="When do Martian dust storms peak?", k=1))["hits"]
            assert [(h["origin_agent"], h["content"]) for h in hits] == [("earth-1", stored["content"])]
            # nothing was promoted to main: the collective agreed on nothing yet
            consensus = await call(mars, "memory_recall", query="When do Martian dust storms peak?", consensus=True)
            assert consensus["hits"] == []
    run(scenario)


BAD_CALLS = [  # (tool, arguments, the CLI command that says the same, or None: the argument schema refuses it)
    ("memory_store", {"content": "Valve 7 is open.", "category": "gossip"}, None),
    ("memory_store", {"content": "Valve 7 is open.", "importance": 5.0}, None),
    ("memory_store", {"content": "Valve 7 is open.", "importance": True}, None),
    ("memory_store", {"content": "Valve 7 is open.", "colour": "red"}, None),
    ("memory_store", {"content": "   "}, ["store", "   "]),
    ("memory_forget", {"memory_id": "no-such-memory"}, ["forget", "no-such-memory"]),
    ("memory_recall", {"query": "valve", "k": 0}, None),
    ("memory_recall", {"query": "valve", "as_of": "no-such-commit"}, ["recall", "valve", "--as-of", "no-such-commit"]),
    ("memory_log", {"limit": 0}, None),
    ("memory_push", {"remote": "nowhere"}, ["push", "nowhere"]),
    ("memory_judge", {"a": "", "b": "Valve 7 is open."}, None),
    ("memory_recall", {"query": "valve", "k": "many"}, None),
    ("memory_disputes", {"status": "bogus"}, None),
    ("memory_dispute", {"dispute_id": "no-such-dispute"}, ["quarantine", "show", "no-such-dispute"]),
    ("memory_store", {}, None),
]


def test_bad_arguments_are_tool_errors_with_the_cli_message_in_tool_words_and_write_nothing(agents, cmem):
    messages = {}

    async def scenario():
        async with served(agents, "earth-1", operator=True) as session:
            await call(session, "memory_store", content="Valve 7 is closed.")
            before = (await call(session, "memory_log"), await call(session, "memory_status"))
            for tool, arguments, _ in BAD_CALLS:
                result = await session.call_tool(tool, arguments)
                assert result.is_error, (tool, arguments)
                [content] = result.content
                messages[tool, json.dumps(arguments)] = content.text
            assert (await call(session, "memory_log"), await call(session, "memory_status")) == before
    run(scenario)
    for tool, arguments, command in BAD_CALLS:
        text = messages[tool, json.dumps(arguments)]
        if command is not None:
            printed = cmem(*command, "--agent", "earth-1")
            # the CLI names its option and commands, a tool its argument and tools
            said = in_tool_words(printed.stderr.replace("as-of:", "as_of:"), TOOLS | OPERATOR)
            assert printed.exit_code == 2 and said == f"Error: {text}\n", (command, printed.stderr)
    assert messages["memory_dispute", json.dumps({"dispute_id": "no-such-dispute"})] == (
        "dispute: no dispute 'no-such-dispute' (see memory_disputes)")
    assert messages["memory_judge", json.dumps({"a": "", "b": "Valve 7 is open."})] == "a: must be non-empty text"
    assert messages["memory_store", "{}"] == "content: Field required"
    assert messages["memory_store", json.dumps({"content": "Valve 7 is open.", "importance": 5.0})] == (
        "importance: Input should be less than or equal to 1")
    assert messages["memory_store", json.dumps({"content": "Valve 7 is open.", "importance": True})] == (
        "importance: a number, not true")
    assert messages["memory_store", json.dumps({"content": "Valve 7 is open.", "colour": "red"})].startswith(
        "colour: not an argument of this tool (it takes content, category,")
    assert messages["memory_store", json.dumps({"content": "Valve 7 is open.", "category": "gossip"})] == (
        "category: Input should be 'knowledge', 'experience', 'skill', 'social' or 'emotion'")
    assert messages["memory_recall", json.dumps({"query": "valve", "k": 0})] == "k: Input should be greater than or equal to 1"
    assert messages["memory_recall", json.dumps({"query": "valve", "k": "many"})] == (
        "k: Input should be a valid integer, unable to parse string as an integer")


def test_an_unknown_agent_stops_the_server_before_it_serves(home, cmem):
    assert cmem("init", "--agent", "earth-1").exit_code == 0
    printed = cmem("mcp", "--agent", "nobody")
    assert printed.exit_code == 2 and printed.stderr.startswith("Error: agent")


class RawClient:
    """`cmem mcp` spoken to line by line, as a client that escapes a lone surrogate in JSON
    (JavaScript's JSON.stringify does) would speak to it; the SDK's client cannot send one."""

    def __init__(self, home: Path, agent_id: str):
        self.process = subprocess.Popen([CMEM, "mcp", "--agent", agent_id, "--home", str(home)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.send('{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
                  '"capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}')
        assert self.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}', answered=False) is None

    def send(self, line: str, *, answered: bool = True, wait_s: float = 60) -> dict | None:
        self.process.stdin.write(line.encode("ascii") + b"\n")
        self.process.stdin.flush()
        if not answered:
            return None
        ready, _, _ = select.select([self.process.stdout], [], [], wait_s)
        assert ready, f"no answer in {wait_s} s to {line}"
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        finally:
            self.process.kill()


def test_a_call_holding_a_lone_surrogate_gets_an_error_result_and_writes_nothing(agents):
    client = RawClient(agents, "earth-1")
    try:
        log = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_log", "arguments": {}}}'
        before = client.send(log)["result"]
        answer = client.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_store", '
                             '"arguments": {"content": "Valve \\ud800 is open.", "tags": ["ok"]}}}')
        assert answer["id"] == 2 and answer["result"]["isError"]
        assert answer["result"]["content"] == [
            {"type": "text", "text": "content: not valid text (a lone surrogate U+D800 at position 6)"}]
        as_of = client.send('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_recall", '
                           '"arguments": {"query": "valve", "as_of": "\\udcff"}}}')
        assert as_of["result"]["content"][0]["text"] == "as_of: not valid UTF-8 (byte 0xff at position 0)"
        listing = client.send('{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"cursor": "\\ud83d"}}')
        assert listing["error"]["message"] == "params.cursor: not valid text (a lone surrogate U+D83D at position 0)"
        again = log.replace('"id": 1', '"id": 5')
        assert client.send(again)["result"] == before  # still serving, and nothing was committed
    finally:
        client.close()


def test_an_agent_remembers_over_turns_notices_a_dispute_and_sees_its_peers(agents):
    """A realistic session, as a client's model would run it: remember facts over several
    turns, recall them in other words, learn from a peer, notice that the peer disagrees,
    and look at the dispute, the peer's trust and a proposal for consensus."""
    async def scenario():
        async with served(agents, "mars-1") as mars:
            await call(mars, "memory_store", content="The coolant pump in module C is not safe to operate")
            await call(mars, "memory_push")
        async with served(agents, "earth-1", operator=True) as earth:
            facts = ["The coolant pump in module C is safe to operate",
                     "Rover B needs a new battery before the next traverse",
                     "The crew prefers oatmeal for breakfast"]
            stored = [await call(earth, "memory_store", content=fact, tags=["turn"]) for fact in facts]
            found = await call(earth, "memory_recall", query="what does the rover need?", k=1)
            assert [h["id"] for h in found["hits"]] == [stored[1]["id"]]
            pulled = await call(earth, "memory_pull")
            assert [(p["peer"], p["summary"]["new"]) for p in pulled["peers"]] == [("mars-1", 1)]
            (dispute,) = (await call(earth, "memory_disputes"))["disputes"]
            assert {dispute["a"]["content"], dispute["b"]["content"]} == {
                facts[0], "The coolant pump in module C is not safe to operate"}
            assert (await call(earth, "memory_dispute", dispute_id=dispute["dispute"]))["status"] == dispute["status"]
            (peer,) = (await call(earth, "memory_peers"))["peers"]
            assert peer["agent"] == "mars-1"
            ledger = await call(earth, "memory_trust", agent_id="mars-1")
            assert "quarantined" in {e["reason"] for e in ledger["events"]}  # its claim was disputed here
            proposed = await call(earth, "memory_promote", memory_id=stored[1]["id"], note="checked twice")
            assert proposed["memory"] == stored[1]["id"] and proposed["status"] == "pending"
        async with served(agents, "earth-1", reviewer="ada") as person:  # a person reviews through a client
            tools = {t.name for t in (await person.list_tools()).tools}
            assert tools - TOOLS == {"memory_resolve", "memory_reopen", "memory_decide_promotion", "memory_decide_key"}
            decided = await call(person, "memory_resolve", dispute_id=dispute["dispute"], keep="b",
                                 note="the pump failed its pressure test")
            assert mismatches(decided, DecidedDispute) == []
            assert decided["status"] == "resolved" and decided["resolution"]["by"] == "ada"
            assert (await call(person, "memory_disputes"))["disputes"] == []
    person_cli(agents)
    run(scenario)


def person_cli(home: Path) -> None:
    """The reviewer ada: a key in the home, honoured by earth-1."""
    made = subprocess.run([CMEM, "reviewer", "init", "--name", "ada", "--home", str(home), "--json"],
                          capture_output=True, text=True, check=True)
    subprocess.run([CMEM, "reviewers", "add", "ada", json.loads(made.stdout)["public_key"], "--agent", "earth-1",
                    "--home", str(home)], capture_output=True, text=True, check=True)


def test_a_server_for_a_reviewer_without_a_key_here_refuses_to_start(agents):
    done = subprocess.run([CMEM, "mcp", "--agent", "earth-1", "--reviewer", "nobody", "--home", str(agents)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "nobody" in done.stderr, done.stderr


def test_status_and_open_disputes_are_resources_and_a_prompt_says_how_to_use_memory(agents):
    async def scenario():
        async with served(agents, "earth-1") as session:
            await call(session, "memory_store", content="Valve 7 is closed.")
            uris = {str(r.uri) for r in (await session.list_resources()).resources}
            assert uris == {"memory://status", "memory://disputes/open"}
            status = json.loads((await session.read_resource("memory://status")).contents[0].text)
            assert status["agent"] == "earth-1" and status["counts"]["memories"] == 1
            disputes = json.loads((await session.read_resource("memory://disputes/open")).contents[0].text)
            assert disputes == {"total": 0, "offset": 0, "disputes": []}
            (prompt,) = (await session.list_prompts()).prompts
            text = (await session.get_prompt(prompt.name)).messages[0].content.text
            assert "memory_recall" in text and "memory_store" in text and "memory_disputes" in text
    run(scenario)
