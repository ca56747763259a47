"""`cmem mcp`: the agent's memory as a Model Context Protocol server over stdio.

Built on the `mcp` package 2.x, whose server class is `MCPServer`
(`mcp.server.mcpserver`; FastMCP before 2.0). Standard output carries the
protocol, so nothing else may print there; the SDK logs to standard error.
"""

from __future__ import annotations

import inspect
import json
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError

from .person import PersonTools
from .tools import MEMORY, NAMES, OPERATOR, PERSON, READ_ONLY, MemoryTools
from .unreadable import Answering

if TYPE_CHECKING:
    from ..agent import Agent

INSTRUCTIONS = (
    "Versioned memory shared with other agents. Store what you learn, recall before you answer "
    "(as_of recalls what was believed at an earlier commit), push to share and pull to learn from "
    "peers; disagreements wait in the quarantine for a person."
)


class MemoryServer(MCPServer):
    """MCPServer, with arguments that do not fit a tool's schema refused in one line
    naming the field, like every other bad input ("k: Input should be a valid integer"),
    and a request the transport cannot read answered all the same (unreadable.py)."""

    async def run_stdio_async(self) -> None:
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(Answering(read_stream, write_stream), write_stream,
                                            self._lowlevel_server.create_initialization_options())

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            _check_arguments(tool.parameters, arguments or {})
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as e:
            if not isinstance(e.__cause__, ValidationError):
                raise
            raise ToolError("; ".join(f"{'.'.join(map(str, err['loc'])) or 'arguments'}: {err['msg']}"
                                      for err in e.__cause__.errors())) from e.__cause__
        if isinstance(result, CallToolResult) and result.structured_content is not None and not result.is_error:
            # compact JSON in the text a model reads (the SDK indents it: tokens paid on every call)
            text = json.dumps(result.structured_content, separators=(",", ":"))
            result = result.model_copy(update={"content": [TextContent(type="text", text=text)]})
        return result


def _check_arguments(schema: dict, arguments: dict[str, Any]) -> None:
    """What the SDK would let through: an argument the tool does not take, and true or false
    where a number goes (Python's bool is an int). Refused in one line naming it."""
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        if name not in properties:
            raise ToolError(f"{name}: not an argument of this tool (it takes {', '.join(properties) or 'none'})")
        kinds = {properties[name].get("type")} | {k.get("type") for k in properties[name].get("anyOf", [])}
        if isinstance(value, bool) and kinds & {"number", "integer"} and "boolean" not in kinds:
            raise ToolError(f"{name}: a number, not {str(value).lower()}")


# What each argument is, as the client's model reads it in the tool's input schema (an argument
# whose type already says it, in tools.py, keeps that description).
ARGUMENTS = {
    "content": "one fact, said plainly (who or what, and its state)",
    "tags": "topic words",
    "phase": "stance in radians instead of stance: 0 affirms, pi denies; any finite number, taken modulo 2 pi",
    "query": "a few keywords or a question",
    "min_score": "least relevance (0 to 1) a hit must have; default 0.15",
    "categories": "only memories of any of these categories",
    "origins": "only memories first stored by any of these agents",
    "since": "only memories created at or after this time (ISO-8601)",
    "until": "only memories created at or before this time (ISO-8601)",
    "as_of": "a commit, branch or time: answer as the agent believed then",
    "include_faded": "also memories faded by age and weak amplitude",
    "include_refuted": "also memories a person's verdict refuted",
    "consensus": "only memories the collective promoted to main",
    "limit": "how many to return at most",
    "offset": "how many to skip (paging)",
    "memory_id": "a memory's id",
    "remote": "the commons (default: the agent's default remote)",
    "peers": "only these peers (agent ids)",
    "dry_run": "plan only: write nothing",
    "status": "open, pending, escalated, resolved, or null for all",
    "dispute_id": "a dispute's id, or one of its cases'",
    "note": "why, kept with the proposal",
    "full": "consolidate everything, not only what changed since the last dream",
    "agent_id": "a peer's agent id",
    "keep": "which claim stands: a, b, both, or merged (then text is the corrected statement)",
    "text": "merged: the corrected statement",
    "supersede": "replace the verdict standing on a resolved dispute",
    "approve": "true approves (promotes to main), false rejects",
    "accept": "true takes the new key as the peer's, false refuses it",
    "a": "the first statement",
    "b": "the second statement",
}


def _describe_arguments(schema: dict) -> None:
    schema["additionalProperties"] = False  # _check_arguments refuses any other
    for name, field in schema.get("properties", {}).items():
        if "description" not in field and name in ARGUMENTS:
            field["description"] = ARGUMENTS[name]


def _lean(schema: Any) -> Any:
    """An input schema without what no reader needs: each "title" pydantic adds (the name
    again, capitalised), and an optional argument's null ("anyOf": [X, null] with default
    null becomes X, which a call may leave out)."""
    if isinstance(schema, list):
        return [_lean(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kinds = schema.get("anyOf", [])
    if len(kinds) == 2 and {"type": "null"} in kinds and schema.get("default", 0) is None:
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "default")}
        return _lean({**next(kind for kind in kinds if kind != {"type": "null"}), **rest})
    return {key: ({name: _lean(field) for name, field in value.items()} if key == "properties" else _lean(value))
            for key, value in schema.items() if not (key == "title" and isinstance(value, str))}


def _outline(schema: dict) -> dict:
    """An output schema as the keys always there: what each holds, the tool's description
    says, and the whole shapes would cost every reader of the tool list about as much
    again as the rest of it. Any key more is allowed (detail adds some)."""
    if "required" not in schema:
        return schema
    return {"type": "object", "required": schema["required"]}


def build_server(agent: Agent, *, reviewer: str | None = None, operator: bool = False) -> MCPServer:
    """An MCPServer whose tools act on `agent` (which the caller opens and closes): the memory
    verbs; with `operator`, also the operator's (dream, sync, key rotation, ...); with
    `reviewer`, also a person's decisions, signed with that reviewer's key (person.py)."""
    server = MemoryServer(name="collective-memory", version=version("collective-memory"),
                          instructions=INSTRUCTIONS, log_level="WARNING")
    tools = PersonTools(agent, reviewer) if reviewer else MemoryTools(agent)
    offered = (*MEMORY, *(OPERATOR if operator else ()), *(PERSON if reviewer else ()))
    tools.offered = frozenset(NAMES[name] for name in offered)
    for name in offered:
        # forget retracts (kept in history), pull merges and may dispute: nothing is destroyed
        hints = ToolAnnotations(read_only_hint=True) if name in READ_ONLY else \
            ToolAnnotations(read_only_hint=False, destructive_hint=False)
        method = getattr(tools, name)  # its docstring as the model reads it: without the source's indentation
        server.add_tool(method, name=NAMES[name], description=inspect.cleandoc(method.__doc__), annotations=hints)
        tool = server._tool_manager.get_tool(NAMES[name])
        _describe_arguments(tool.parameters)
        tool.parameters = _lean(tool.parameters)
        if tool.fn_metadata.output_schema is not None:
            tool.fn_metadata.output_schema = _outline(tool.fn_metadata.output_schema)
    _add_resources_and_prompt(server, tools)
    return server


USING_MEMORY = """You have a memory shared with other agents (the memory_* tools).
- Before you answer from what you believe, memory_recall it: a few keywords or a question.
- When you learn something that will matter later, memory_store it as one short statement
  of one fact (say who or what, and the state: "The pump in module C is not safe to operate").
  Use stance "uncertain" when you are not sure, and tags for the topic.
- memory_pull learns what your peers found; memory_push shares what you stored.
- When memory_disputes lists a disagreement, do not pick a side yourself: say so to the person
  you work with; a reviewer decides, and refuted claims leave your recall.
- Memories are never deleted: memory_forget retracts one of your own, kept in history."""


def _add_resources_and_prompt(server: MCPServer, tools: MemoryTools) -> None:
    """The agent's status and its open disputes as resources a client can show or attach, and
    a prompt saying how to use the memory well."""

    @server.resource("memory://status", name="status", mime_type="application/json",
                     description="The agent at a glance, as memory_status returns it.")
    def status() -> str:
        return _as_resource(tools.status())

    @server.resource("memory://disputes/open", name="open disputes", mime_type="application/json",
                     description="Disagreements waiting for a person, as memory_disputes returns them.")
    def open_disputes() -> str:
        return _as_resource(tools.disputes("open"))

    @server.prompt(name="use_memory", description="How to use this shared memory well.")
    def use_memory() -> str:
        return USING_MEMORY


def _as_resource(result: Any) -> str:
    """A tool's result as a resource's text (the tool took the agent's lock); its error, raised."""
    if isinstance(result, CallToolResult):
        raise ValueError(result.content[0].text)
    return json.dumps(result)


def serve(agent: Agent, *, reviewer: str | None = None, operator: bool = False) -> None:
    """Serve `agent` on standard input and output until the client closes them."""
    build_server(agent, reviewer=reviewer, operator=operator).run("stdio")
