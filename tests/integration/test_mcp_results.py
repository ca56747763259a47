"""`cmem mcp`: work recorded here but not shared is a result, not an error; the argument
schemas carry the server's limits; a refusal names the tool's argument, not the CLI's option."""

from __future__ import annotations

import json

from tests.integration.test_mcp import agents, call, person_cli, run, served  # noqa: F401

PUMP_SAFE = "The coolant pump in module C is safe to operate"
PUMP_UNSAFE = "The coolant pump in module C is not safe to operate"
CLOSED = "http://127.0.0.1:9/commons.db"  # the discard port: nothing listens, the connection is refused


def test_work_recorded_here_but_not_shared_is_a_result_naming_memory_push(agents, cmem):
    """promote, resolve and decide_promotion with the commons out of reach: each wrote, so each
    is a normal result saying it was recorded locally and not shared, and memory_push shares it."""
    async def unshared(session, tool, **arguments) -> dict:
        result = await session.call_tool(tool, arguments)
        assert not result.is_error, result.content
        assert json.loads(result.content[0].text) == result.structured_content
        line = result.structured_content["not_shared"]
        assert "recorded locally, not shared: call memory_push (" in line and "cmem push" not in line, line
        return result.structured_content

    async def scenario():
        async with served(agents, "mars-1") as mars:
            await call(mars, "memory_store", content=PUMP_UNSAFE)
            await call(mars, "memory_push")
        async with served(agents, "earth-1") as earth:
            stored = await call(earth, "memory_store", content=PUMP_SAFE)
            await call(earth, "memory_pull")
            (dispute,) = (await call(earth, "memory_disputes"))["disputes"]
        commons = json.loads(cmem("remote", "list", "--agent", "earth-1", "--json").stdout)["origin"]
        assert cmem("remote", "set-url", "origin", CLOSED, "--agent", "earth-1").exit_code == 0
        async with served(agents, "earth-1") as earth:
            head = (await call(earth, "memory_status"))["head"]
            proposed = await unshared(earth, "memory_promote", memory_id=stored["id"], note="checked")
            assert proposed["memory"] == stored["id"] and proposed["promotions"]["pushed"] is False
            assert (await call(earth, "memory_status"))["head"] != head  # it wrote
            again = await earth.call_tool("memory_promote", {"memory_id": stored["id"], "note": "checked"})
            assert again.is_error and "already proposed" in again.content[0].text
        async with served(agents, "earth-1", reviewer="ada") as person:
            decided = await unshared(person, "memory_resolve", dispute_id=dispute["dispute"], keep="b",
                                     note="the pump failed its pressure test")
            assert decided["status"] == "resolved" and decided["quarantine"]["pushed"] is False
            rejected = await unshared(person, "memory_decide_promotion", memory_id=stored["id"], approve=False,
                                      note="not yet checked on site")
            assert rejected["memory"] == stored["id"]
        assert cmem("remote", "set-url", "origin", commons, "--agent", "earth-1").exit_code == 0
        async with served(agents, "earth-1") as earth:
            pushed = await call(earth, "memory_push")
            assert "not_shared" not in pushed and pushed["quarantine"]["pushed"]
    person_cli(agents)
    run(scenario)


def test_argument_schemas_carry_the_limits_the_server_enforces(agents):
    async def scenario():
        async with served(agents, "earth-1") as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
        recall = tools["memory_recall"].input_schema["properties"]
        assert (recall["min_score"]["type"], recall["min_score"]["minimum"], recall["min_score"]["maximum"]) == (
            "number", 0, 1)
        store = tools["memory_store"].input_schema["properties"]
        assert recall["categories"]["items"]["enum"] == store["category"]["enum"]
        assert tools["memory_list"].input_schema["properties"]["offset"]["minimum"] == 0
        assert "modulo 2 pi" in store["phase"]["description"]
        assert all(t.input_schema["additionalProperties"] is False for t in tools.values())
    run(scenario)


def test_descriptions_say_what_the_server_does(agents):
    """until is inclusive; identical content reinforces only at a like stance; a phase given
    comes back as stance "explicit"."""
    async def scenario():
        async with served(agents, "earth-1") as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ("memory_list", "memory_recall"):
                assert "at or before" in tools[name].input_schema["properties"]["until"]["description"]
            assert "both inclusive" in tools["memory_recall"].description
            store = tools["memory_store"].description
            assert "less than 45 degrees" in store and '"explicit"' in store
            first = await call(session, "memory_store", content="Hatch 3 is open", detail=True)
            listed = await call(session, "memory_list", until=first["created_at"])
            assert [m["id"] for m in listed["memories"]] == [first["id"]]
            assert (await call(session, "memory_store", content="Hatch 3 is open"))["deduplicated"]
            turned = await call(session, "memory_store", content="Hatch 3 is open", phase=2.0, detail=True)
            assert not turned["deduplicated"] and turned["stance"] == "explicit"
    run(scenario)


BAD = [  # (tool, arguments, the one line it answers)
    ("memory_recall", {"query": "x", "min_score": 2}, "min_score: Input should be less than or equal to 1"),
    ("memory_recall", {"query": "x", "categories": ["facts"]},
     "categories.0: Input should be 'knowledge', 'experience', 'skill', 'social' or 'emotion'"),
    ("memory_list", {"offset": -1}, "offset: Input should be greater than or equal to 0"),
    ("memory_recall", {"query": "x", "as_of": "nope"}, "as_of: 'nope' is neither a commit, a branch nor a timestamp"),
    ("memory_recall", {"query": "x", "as_of": "HEAD", "consensus": True},
     "consensus: recalls main as it is now: it cannot be combined with as_of"),
    ("memory_store", {"content": "Pump is on", "phase": 1.0, "stance": "deny"},
     "phase: give phase or stance, not both"),
    ("memory_resolve", {"dispute_id": "no-such-dispute", "keep": "merged", "note": "one of them"},
     "text: merged needs the corrected statement (text)"),
]


def test_a_refusal_names_the_argument_not_the_cli_option(agents):
    async def scenario():
        async with served(agents, "earth-1", reviewer="ada") as session:
            for tool, arguments, line in BAD:
                result = await session.call_tool(tool, arguments)
                assert result.is_error and result.content[0].text == line, (tool, result.content[0].text)
    person_cli(agents)
    run(scenario)


def test_a_peers_key_warning_names_the_tool_that_decides_it(agents):
    """A key changed without a signed rotation: memory_peers says so in a tool's words (the
    reviewer's memory_decide_key), never a command."""
    from collective.agent import Agent
    from tests.integration.test_keys import replace_key_without_rotation

    with Agent.open("earth-1", home=agents) as e1:
        e1.store(PUMP_SAFE)
        e1.push()
    async def first():
        async with served(agents, "mars-1") as mars:
            await call(mars, "memory_pull")
    run(first)
    with Agent.open("earth-1", home=agents) as e1:
        replace_key_without_rotation(e1)
        e1.store(PUMP_UNSAFE)
        e1.push()

    async def scenario():
        async with served(agents, "mars-1", operator=True) as mars:
            await call(mars, "memory_pull")
            (peer,) = (await call(mars, "memory_peers"))["peers"]
            warning = peer["key_warning"]
            assert "memory_decide_key" in warning and "cmem" not in warning, warning
    run(scenario)
