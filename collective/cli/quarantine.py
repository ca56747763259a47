"""Quarantine: disagreements between memories, waiting for a person's decision."""

from __future__ import annotations

import click

from .common import agent_options, cli_errors, emit, json_option, open_agent


@click.group("quarantine")
def quarantine_group():
    """Disagreements between memories, waiting for a person."""


def _render_cases(cases: list[dict]) -> str:
    if not cases:
        return "no cases"
    return "\n".join(f"{c['id']}  {c['status']:9} disputes {c['dispute_count']}  "
                     f"{c['agent_a']} vs {c['agent_b']}" + (f"  ({c['awaiting']})" if c.get("awaiting") else "")
                     for c in cases)


@quarantine_group.command("list")
@click.option("--status", help="pending, escalated or resolved.")
@agent_options
@json_option
def quarantine_list(status, home, agent_id, as_json):
    """List quarantine cases.

    \b
    A resolved case whose verdict no reviewer this agent honours signed is shown
    "awaiting an authorised reviewer" (see `cmem reviewers add`).

    \b
    JSON: [{"id", "memory_id_a", "memory_id_b", "agent_a", "agent_b", "similarity",
            "phase_diff", "dispute_count", "status", "resolution", "created_at", "resolved_at",
            "applied", "awaiting", "opened_by", "counted_by", ...signatures}]
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.cases(status)
    emit(result, as_json=as_json, text=_render_cases)


def _render_case(c: dict) -> str:
    lines = [f"case {c['id']} ({c['status']}, {c['dispute_count']} dispute(s))",
             f"similarity {c['similarity']:.3f}, phase difference {c['phase_diff']:.3f} rad"]
    for side in ("a", "b"):
        m = c[side]
        lines.append(f"  {side}: [{m.get('origin_agent', '?')}, trust {m['trust']:.2f}] {m.get('content', '(not held)')}")
    if c["resolution"]:
        r = c["resolution"]
        lines.append(f"resolved: keep {r['keep']} by {r['by']}: {r['note']}"
                     + (f" ({c['awaiting']})" if c.get("awaiting") else ""))
    return "\n".join(lines)


@quarantine_group.command("show")
@click.argument("case_id")
@agent_options
@json_option
def quarantine_show(case_id, home, agent_id, as_json):
    """The two memories side by side, with origins, trust, similarity and history.

    \b
    JSON: a case plus "a" and "b" (memories with "trust") and "history" (commits).
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.case(case_id)
    emit(result, as_json=as_json, text=_render_case)


@quarantine_group.command("resolve")
@click.argument("case_id")
@click.option("--keep", required=True, help="a, b, both or merged.")
@click.option("--note", help="Why.")
@click.option("--by", help="Reviewer whose key signs the verdict (`cmem reviewer init`; "
                           "default: the key named $USER, else the only one).")
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@agent_options
@json_option
def quarantine_resolve(case_id, keep, note, by, remote_name, home, agent_id, as_json):
    """Record a person's decision on a case, signed with their reviewer key, then push it.

    It takes effect on each agent whose operator authorised that reviewer.
    Exit 3: recorded locally, not shared (run `cmem push`); 1: nothing written.

    \b
    JSON: the case after resolution plus "commit", "applied" and "quarantine".
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.resolve_case(case_id, keep=keep, note=note, by=by, remote=remote_name)
    emit(result, as_json=as_json, text=lambda r: f"resolved {r['id']}: keep {r['resolution']['keep']}"
         + (f" ({r['awaiting']})" if r.get("awaiting") else "")
         + (" (pushed)" if r["quarantine"].get("pushed") else ""))


COMMANDS = (quarantine_group,)
