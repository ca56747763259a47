"""A day's work through `cmem mcp` as a client's model does it, measured: every result
stays within what a model's context affords, and so does the tool list."""

from __future__ import annotations

import json

from tests.integration.test_mcp import agents, run, served  # noqa: F401

RESULT_BYTES = 4096  # the most one answer may cost
TOOL_LIST_BYTES = 15_000

FACTS = [f"Valve {n} on deck {n % 5} is {'open' if n % 2 else 'closed'}" for n in range(1, 21)] + [
    "The coolant pump in module C is safe to operate",
    "Rover B needs a new battery before the next traverse",
    "The crew prefers oatmeal for breakfast",
    "EVA 3 starts at 14:00 on Sunday",
    "The greenhouse lights run from 06:00 to 20:00"]
QUESTIONS = [f"is valve {n} open?" for n in range(1, 11)] + [
    "is the pump safe?", "what does the rover need?", "what is for breakfast?", "when is EVA 3?", "greenhouse lights"]


def test_a_session_stays_within_a_models_context(agents, capsys):
    sizes: list[tuple[str, int]] = []

    async def call(session, tool: str, **arguments) -> dict:
        result = await session.call_tool(tool, arguments)
        assert not result.is_error, result.content
        sizes.append((tool, len(result.content[0].text.encode())))
        return result.structured_content

    async def scenario():
        async with served(agents, "mars-1") as mars:  # a teammate shares what it found
            await call(mars, "memory_store", content="The coolant pump in module C is not safe to operate")
            for n in range(1, 11):
                await call(mars, "memory_store", content=f"Dust filter {n} was replaced on sol {100 + n}")
            await call(mars, "memory_push")
        async with served(agents, "earth-1") as earth:
            listed = (await earth.list_tools()).tools
            sizes.append(("tools/list", len(json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True)
                                                        for t in listed], separators=(",", ":")).encode())))
            stored = [await call(earth, "memory_store", content=fact, tags=["log"]) for fact in FACTS]
            assert len({s["id"] for s in stored}) == 25
            for question in QUESTIONS:
                assert (await call(earth, "memory_recall", query=question))["hits"]
            pulled = await call(earth, "memory_pull")
            [peer] = pulled["peers"]
            assert peer["peer"] == "mars-1" and peer["summary"]["new"] == 11 and len(peer["summary"]["cases"]) == 1
            await call(earth, "memory_push")
            disputes = await call(earth, "memory_disputes")
            assert disputes["total"] == 1
            [dispute] = disputes["disputes"]
            assert {dispute["a"]["content"], dispute["b"]["content"]} == {
                FACTS[20], "The coolant pump in module C is not safe to operate"}
            assert (await call(earth, "memory_dispute", dispute_id=peer["summary"]["cases"][0]))["dispute"] == \
                dispute["dispute"]
            assert (await call(earth, "memory_list"))["total"] == 36
            await call(earth, "memory_status")

    run(scenario)
    with capsys.disabled():
        print("\nMCP session, bytes per result:")
        for tool in dict.fromkeys(tool for tool, _ in sizes):
            each = [size for name, size in sizes if name == tool]
            print(f"  {tool:16} x{len(each):<3} max {max(each):>6}  mean {sum(each) // len(each):>6}")
    listing = dict(sizes)["tools/list"]
    assert listing < TOOL_LIST_BYTES, listing
    assert [(tool, size) for tool, size in sizes if tool != "tools/list" and size > RESULT_BYTES] == []
