"""Promotions to main: propose a memory, endorse another agent's, and a person's decision."""

from __future__ import annotations

import click

from ..reports import Proposal, ProposalReport, documented, shape_lines
from .common import agent_options, cli_errors, emit, json_option, open_agent

PROMOTION_JSON = "\b\n" + "\n".join(shape_lines(ProposalReport))

remote_argument = click.argument("remote_name", metavar="[REMOTE]", required=False)


def _render_one(p: dict) -> str:
    text = f"{p['memory']}  {p['status']}"
    if p.get("endorsements"):
        text += f"  endorsed by {', '.join(p['endorsements'])}"
    if p.get("decided_by"):
        text += f"  {'approved' if p['decision']['approve'] else 'rejected'} by {p['decided_by']}"
    if p.get("awaiting"):
        text += f" ({p['awaiting']})"
    if p.get("commit"):
        text += f"  on main at {p['commit'][:12]}"
    if p.get("promotions", {}).get("error"):
        text += f"  (not shared: {p['promotions']['error']})"
    return text


def _render_list(promotions: list[dict]) -> str:
    if not promotions:
        return "no promotions"
    return "\n".join(f"{_render_one(p)}\n    {p['summary'] or '(not held)'}  ({p['origin_agent']}, "
                     f"proposed by {p['proposed_by']})" for p in promotions)


@click.command(help="Propose MEMORY for main, the collective's consensus; the proposal is signed and "
                    "shared.\n\nIt is promoted when a person approves it (`cmem promotions approve`) or when "
                    "two agents other than its origin endorse it (`cmem endorse`). Exit 3: recorded, not "
                    "shared.\n\n" + PROMOTION_JSON)
@click.argument("memory_id")
@click.option("--note", help="Why this memory belongs in the collective's consensus.")
@remote_argument
@agent_options
@json_option
def promote(memory_id, note, remote_name, home, agent_id, as_json):
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.promote(memory_id, note=note, remote=remote_name)
    emit(result, as_json=as_json, text=lambda r: f"proposed {_render_one(r)}")


@click.command(help="Endorse a proposed MEMORY of another agent (signed). The second endorser promotes "
                    "it.\n\nAn agent cannot endorse its own memory (exit 2). Exit 3: recorded, not shared.\n\n"
                    + PROMOTION_JSON)
@click.argument("memory_id")
@remote_argument
@agent_options
@json_option
def endorse(memory_id, remote_name, home, agent_id, as_json):
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.endorse(memory_id, remote=remote_name)
    emit(result, as_json=as_json, text=lambda r: f"endorsed {_render_one(r)}")


@click.group("promotions")
def promotions_group():
    """Memories proposed for main, and a person's decision on them."""


@promotions_group.command("list")
@click.option("--status", default="pending", show_default=True, type=click.Choice(["pending", "promoted",
              "rejected", "all"]), help="Which proposals.")
@agent_options
@json_option
@documented(Proposal, many=True)
def promotions_list(status, home, agent_id, as_json):
    """List proposals for main as this agent sees them (after its last pull), oldest first.
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.promotions(None if status == "all" else status)
    emit(result, as_json=as_json, text=_render_list)


def _decide(approve: bool):
    verb = "approve" if approve else "reject"

    @promotions_group.command(verb, help=(
        f"{verb.capitalize()} the proposal of MEMORY, signed with a reviewer key, then share it.\n\n"
        + ("Approval promotes it to main" if approve else "Rejection keeps it off main")
        + " on each agent whose operator authorised that reviewer. Exit 3: recorded, not shared.\n\n"
        + PROMOTION_JSON))
    @click.argument("memory_id")
    @click.option("--note", required=True, help="Why (recorded with the decision).")
    @click.option("--by", help="Reviewer whose key signs the decision (`cmem reviewer init`; "
                               "default: the key named $USER, else the only one).")
    @remote_argument
    @agent_options
    @json_option
    def decide(memory_id, note, by, remote_name, home, agent_id, as_json):
        with cli_errors():
            with open_agent(home, agent_id) as agent:
                result = agent.decide_promotion(memory_id, approve=approve, note=note, by=by, remote=remote_name)
        emit(result, as_json=as_json, text=lambda r: f"{verb}d {_render_one(r)}")

    return decide


promotions_approve = _decide(True)
promotions_reject = _decide(False)

COMMANDS = (promote, endorse, promotions_group)
