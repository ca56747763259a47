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

from collective.reports import PeerPullReport, PullReport, PushReport, StatusReport
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CMEM = str(Path(sys.executable).parent / "cmem")
TOOLS = {"store", "recall", "list_memories", "show", "forget", "log", "status", "push", "pull", "quarantine_list", "stability",
         "judge"}


@contextlib.asynccontextmanager
async def served(home: Path, agent_id: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=CMEM, args=["mcp", "--agent", agent_id, "--home", str(home)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict:
    """A tool's result, which must be no error and the same JSON in text and structure."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
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
            tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        assert all("Returns" in t.description for t in tools.values())
        recall = tools["recall"]
        assert recall.input_schema["required"] == ["query"]
        assert set(recall.input_schema["properties"]) == {"query", "k", "as_of", "include_faded", "include_refuted",
                                                          "consensus", "min_score", "tags", "categories", "origins",
                                                          "since", "until"}
        assert recall.annotations.read_only_hint and not tools["store"].annotations.read_only_hint
        # the output schemas of the typed reports (collective/reports.py), every field required
        for name, report in (("pull", PullReport), ("push", PushReport), ("status", StatusReport)):
            schema = tools[name].output_schema
            assert set(schema["properties"]) == set(schema["required"]) == set(report.__annotations__), name
        peer = tools["pull"].output_schema["$defs"]["PeerPullReport"]
        assert set(peer["properties"]) == set(PeerPullReport.__annotations__)
    run(scenario)


def test_a_keyword_and_a_question_in_other_words_find_their_memories_and_filters_narrow(agents):
    """A one-word query and a question that shares one word with its answer (cosine 0.37) both
    find it; a question about nothing stored names the closest instead; filters and paging."""
    async def scenario():
        async with served(agents, "earth-1") as session:
            pump = await call(session, "store", content="The coolant pump in module C is safe to operate",
                              tags=["hardware"])
            dark = await call(session, "store", content="The user prefers dark mode in every editor",
                              category="social")
            await call(session, "store", content="Lunch is served at noon in the galley")
            assert [h["id"] for h in (await call(session, "recall", query="pump"))["hits"]] == [pump["id"]]
            theme = await call(session, "recall", query="what theme does the user like?")
            assert [h["id"] for h in theme["hits"]][:1] == [dark["id"]]
            hit = theme["hits"][0]
            assert hit["relevance"] == pytest.approx(0.7 * hit["similarity"] + 0.3 * hit["lexical"] ** 2, abs=1e-5)
            nothing = await call(session, "recall", query="what is the capital of France?")
            assert nothing["hits"] == [] and nothing["closest"] is not None
            assert nothing["closest"]["relevance"] < nothing["min_score"]
            narrowed = await call(session, "recall", query="pump", tags=["hardware"], categories=["knowledge"])
            assert [h["id"] for h in narrowed["hits"]] == [pump["id"]]
            assert (await call(session, "recall", query="pump", categories=["social"]))["hits"] == []
            page = await call(session, "list_memories", limit=2)
            assert page["total"] == 3 and len(page["memories"]) == 2 and page["offset"] == 0
            rest = await call(session, "list_memories", limit=2, offset=2)
            assert len(rest["memories"]) == 1
            assert {m["id"] for m in page["memories"] + rest["memories"]} >= {pump["id"], dark["id"]}
            assert (await call(session, "list_memories", categories=["social"]))["memories"][0]["id"] == dark["id"]
    run(scenario)


def test_stores_recalls_and_recalls_as_of_an_earlier_commit(agents, engine):
    async def scenario():
        async with served(agents, "earth-1") as session:
            pump = await call(session, "store", content="The coolant pump on deck 3 is safe to run.",
                              tags=["deck-3"])
            seal = await call(session, "store", content="The airlock seal on deck 5 is leaking air.")
            assert pump["tags"] == ["deck-3"] and not pump["deduplicated"] and pump["commit"] != seal["commit"]
            now = await call(session, "recall", query="Is the airlock seal leaking?", k=1)
            assert [h["id"] for h in now["hits"]] == [seal["id"]]
            then = await call(session, "recall", query="Is the airlock seal leaking?", as_of=pump["commit"])
            assert seal["id"] not in [h["id"] for h in then["hits"]]  # not stored yet then
            then = await call(session, "recall", query="Is the pump on deck 3 safe?", as_of=seal["commit"])
            assert [h["id"] for h in then["hits"]][:1] == [pump["id"]]

            assert (await call(session, "show", memory_id=pump["id"]))["content"].startswith("The coolant pump")
            assert (await call(session, "log", n=2))["commits"][0]["commit"] == seal["commit"]
            status = await call(session, "status")
            assert (status["agent"], status["engine"], status["counts"]["own"]) == ("earth-1", engine, 2)
            stability = await call(session, "stability")
            assert stability["memories"] == 2 and 0 < stability["stability"] <= 1
            forgotten = await call(session, "forget", memory_id=seal["id"])
            assert forgotten["changed"] and (await call(session, "stability"))["memories"] == 1
            verdict = await call(session, "judge", a="EVA 3 starts at 14:00 on Sunday.",
                                 b="EVA 3 starts at 14:00 on Wednesday.")
            assert verdict["relation"] == "destructive"
            assert (await call(session, "quarantine_list"))["cases"] == []
    run(scenario)


@pytest.mark.usefixtures("engine")
def test_pushes_and_pulls_between_two_agents_through_a_file_commons(agents):
    async def scenario():
        async with served(agents, "earth-1") as earth:
            stored = await call(earth, "store", content="Dust storms on Mars peak in the southern summer.")
            pushed = await call(earth, "push")
            assert pushed["branch"] == "earth-1/working" and pushed["remote"] == "origin"
        async with served(agents, "mars-1") as mars:
            pulled = await call(mars, "pull", remote="origin")
            assert [(p["peer"], p["status"]) for p in pulled["peers"]] == [("earth-1", "merged")]
            hits = (await call(mars, "recall", query="When do Martian dust storms peak?", k=1))["hits"]
            assert [(h["origin_agent"], h["content"]) for h in hits] == [("earth-1", stored["content"])]
            # nothing was promoted to main: the collective agreed on nothing yet
            consensus = await call(mars, "recall", query="When do Martian dust storms peak?", consensus=True)
            assert consensus["hits"] == []
    run(scenario)


BAD_CALLS = [  # (tool, arguments, the CLI command that says the same, or None)
    ("store", {"content": "Valve 7 is open.", "category": "gossip"},
     ["store", "Valve 7 is open.", "--category", "gossip"]),
    ("store", {"content": "Valve 7 is open.", "importance": 5.0}, None),  # the CLI says '5': it passes text
    ("store", {"content": "   "}, ["store", "   "]),
    ("forget", {"memory_id": "no-such-memory"}, ["forget", "no-such-memory"]),
    ("recall", {"query": "valve", "k": 0}, ["recall", "valve", "-k", "0"]),
    ("recall", {"query": "valve", "as_of": "no-such-commit"}, ["recall", "valve", "--as-of", "no-such-commit"]),
    ("log", {"n": 0}, ["log", "-n", "0"]),
    ("push", {"remote": "nowhere"}, ["push", "nowhere"]),
    ("judge", {"a": "", "b": "Valve 7 is open."}, None),
    ("recall", {"query": "valve", "k": "many"}, None),  # refused by the argument schema
    ("store", {}, None),
]


def test_bad_arguments_are_tool_errors_with_the_cli_message_and_write_nothing(agents, cmem):
    messages = {}

    async def scenario():
        async with served(agents, "earth-1") as session:
            await call(session, "store", content="Valve 7 is closed.")
            before = (await call(session, "log"), await call(session, "status"))
            for tool, arguments, _ in BAD_CALLS:
                result = await session.call_tool(tool, arguments)
                assert result.is_error, (tool, arguments)
                [content] = result.content
                messages[tool, json.dumps(arguments)] = content.text
            assert (await call(session, "log"), await call(session, "status")) == before
    run(scenario)
    for tool, arguments, command in BAD_CALLS:
        text = messages[tool, json.dumps(arguments)]
        if command is not None:
            printed = cmem(*command, "--agent", "earth-1")
            assert printed.exit_code == 2 and printed.stderr == f"Error: {text}\n", (command, printed.stderr)
    assert messages["judge", json.dumps({"a": "", "b": "Valve 7 is open."})] == "a: must be non-empty text"
    assert messages["store", "{}"] == "content: Field required"
    assert messages["store", json.dumps({"content": "Valve 7 is open.", "importance": 5.0})] == (
        "importance: must be in (0, 1], got 5.0")
    assert messages["recall", json.dumps({"query": "valve", "k": "many"})] == (
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
        log = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "log", "arguments": {}}}'
        before = client.send(log)["result"]
        answer = client.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "store", '
                             '"arguments": {"content": "Valve \\ud800 is open.", "tags": ["ok"]}}}')
        assert answer["id"] == 2 and answer["result"]["isError"]
        assert answer["result"]["content"] == [
            {"type": "text", "text": "content: not valid text (a lone surrogate U+D800 at position 6)"}]
        as_of = client.send('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "recall", '
                           '"arguments": {"query": "valve", "as_of": "\\udcff"}}}')
        assert as_of["result"]["content"][0]["text"] == "as_of: not valid UTF-8 (byte 0xff at position 0)"
        listing = client.send('{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"cursor": "\\ud83d"}}')
        assert listing["error"]["message"] == "params.cursor: not valid text (a lone surrogate U+D83D at position 0)"
        again = log.replace('"id": 1', '"id": 5')
        assert client.send(again)["result"] == before  # still serving, and nothing was committed
    finally:
        client.close()
