"""`cmem mcp`: the agent's memory as a Model Context Protocol server over stdio.

Built on the `mcp` package 2.x, whose server class is `MCPServer`
(`mcp.server.mcpserver`; FastMCP before 2.0). Standard output carries the
protocol, so nothing else may print there; the SDK logs to standard error.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from .tools import CHANGING, NAMES, READ_ONLY, MemoryTools
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
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if not isinstance(e.__cause__, ValidationError):
                raise
            raise ToolError("; ".join(f"{'.'.join(map(str, err['loc'])) or 'arguments'}: {err['msg']}"
                                      for err in e.__cause__.errors())) from e.__cause__


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


def build_server(agent: Agent) -> MCPServer:
    """An MCPServer whose tools act on `agent` (which the caller opens and closes)."""
    server = MemoryServer(name="collective-memory", version=version("collective-memory"),
                          instructions=INSTRUCTIONS, log_level="WARNING")
    tools = MemoryTools(agent)
    for name in READ_ONLY:
        server.add_tool(getattr(tools, name), name=NAMES[name], annotations=ToolAnnotations(read_only_hint=True))
    for name in CHANGING:
        # forget retracts (kept in history), pull merges and may dispute: nothing is destroyed
        server.add_tool(getattr(tools, name), name=NAMES[name],
                        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    return server


def serve(agent: Agent) -> None:
    """Serve `agent` on standard input and output until the client closes them."""
    build_server(agent).run("stdio")
