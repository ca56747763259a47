"""`cmem mcp`: serve one agent's memory to an MCP client over stdio."""

from __future__ import annotations

import click

from .common import agent_options, cli_errors, open_agent


@click.command("mcp")
@agent_options
def mcp_cmd(home, agent_id):
    """Serve the agent's memory as a Model Context Protocol server on stdin/stdout.

    Tools: memory_store, memory_update, memory_recall (k, min_score, filters, as_of), memory_list, memory_show,
    memory_forget, memory_log, memory_status, memory_push, memory_pull, memory_disputes,
    memory_dispute, memory_promote, memory_endorse, memory_dream, memory_peers, memory_trust,
    memory_stability, memory_judge; each returns one JSON object, and fails with the message
    the matching command would print. An MCP client starts
    this command itself (see the README for its mcpServers entry).
    """
    with cli_errors(), open_agent(home, agent_id) as agent:
        from ..mcp.server import serve  # the SDK loads only when serving
        serve(agent)


COMMANDS = (mcp_cmd,)
