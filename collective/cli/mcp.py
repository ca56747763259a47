"""`cmem mcp`: serve one agent's memory to an MCP client over stdio."""

from __future__ import annotations

import click

from ..errors import BadInput
from .common import agent_options, cli_errors, open_agent


@click.command("mcp")
@click.option("--operator", is_flag=True,
              help="Also offer the operator's tools: memory_dream, memory_sync, memory_rotate_key, memory_judge, "
                   "memory_log, memory_peers, memory_trust and memory_stability.")
@click.option("--reviewer", default=None, metavar="NAME",
              help="A person reviews through this server: also offer their decisions, signed with reviewer "
                   "NAME's key in this home (`cmem reviewer init`).")
@agent_options
def mcp_cmd(operator, reviewer, home, agent_id):
    """Serve the agent's memory as a Model Context Protocol server on stdin/stdout.

    Tools: memory_store, memory_update, memory_forget, memory_challenge, memory_recall (k,
    min_score, filters, as_of), memory_list, memory_show, memory_status, memory_push, memory_pull, memory_disputes,
    memory_dispute, memory_promote and memory_endorse: what a model needs to remember, recall,
    correct, share and notice disputes. With --operator also the operator's tools; with
    --reviewer also memory_resolve, memory_reopen, memory_decide_promotion and memory_decide_key
    (a person's decisions: an agent's own model is never offered them). Each returns one JSON
    object, compact (a list a page at a time, a pull as counts) unless asked for detail; an
    error names tools and arguments. An MCP client starts this command itself (see the README
    for its mcpServers entry).
    """
    with cli_errors(), open_agent(home, agent_id) as agent:
        if reviewer is not None:
            _reviewer_key(agent, reviewer)
        from ..mcp.server import serve  # the SDK loads only when serving
        serve(agent, reviewer=reviewer, operator=operator)


def _reviewer_key(agent, reviewer: str) -> None:
    """Refuse a reviewer without a key here before serving, named as this command's option
    (the key store names the --by of the other commands)."""
    try:
        agent.reviewer_key(reviewer)
    except BadInput as e:
        raise BadInput("reviewer", e.problem) from None


COMMANDS = (mcp_cmd,)
