"""Quarantine: disagreements between memories, grouped by claim, waiting for a person's decision."""

from __future__ import annotations

import click

from ..reports import DecidedDispute, DisputeReport, documented
from ..reports.review import closed_because
from .common import agent_options, cli_errors, emit, json_option, open_agent

@click.group("quarantine")
def quarantine_group():
    """Disagreements between memories, waiting for a person."""


def _render_disputes(disputes: list[dict]) -> str:
    if not disputes:
        return "no disputes"
    return "\n".join(f"{d['dispute']}  {d['status']:9} {d['case_count']} case(s)  {', '.join(d['agents'])}  "
                     f"{d['a']['summary'] or d['a']['memory']!r} vs {d['b']['summary'] or d['b']['memory']!r}"
                     + (f"  ({d['awaiting']})" if d["awaiting"] else "")
                     + (f"  (closed: {d['closed']['reason']})" if d.get("closed") else "") for d in disputes)


@quarantine_group.command("list")
@click.option("--status", help="open (pending or escalated), pending, escalated, resolved or closed (a side's "
                               "origin retracted it).")
@agent_options
@json_option
@documented(DisputeReport, many=True)
def quarantine_list(status, home, agent_id, as_json):
    """List disputes: disagreements between two claims, escalated first, oldest first.

    \b
    Copies that agree stand on the same side, so the cases opened about one
    disagreement (by any agent, about any copies) are one dispute. A resolved
    dispute whose verdict no reviewer this agent honours signed is shown
    "awaiting an authorised reviewer" (see `cmem reviewers add`).
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.disputes(status)
    emit(result, as_json=as_json, text=_render_disputes)


def _render_dispute(d: dict) -> str:
    lines = [f"dispute {d['dispute']} ({d['status']}, {d['case_count']} case(s): {', '.join(d['cases'])})",
             f"agents {', '.join(d['agents'])}; similarity {d['similarity']:.3f}, "
             f"phase difference {d['phase_diff']:.3f} rad" + (f"; the judge: {d['reason']}" if d["reason"] else "")]
    for side in ("a", "b"):
        s = d[side]
        refuted = f" [refuted by {s['refuted_by']} at {s['valid_until']}]" if s["refuted_by"] else ""
        lines.append(f"  {side}: [{s['origin_agent']}, trust {s['trust']:.2f}] {s['content'] or '(not held)'}{refuted}")
        lines += [f"       copy {c['memory']} ({c['origin_agent'] or 'not held'})" for c in s["copies"]]
    if d["resolution"]:
        r = d["resolution"]
        lines.append(f"resolved: keep {r['keep']} by {r['by']} at {r['at']}: {r['note']}"
                     + (f" -> {r['memory']}: {r['text']!r}" if r.get("memory") else "")
                     + (f" ({d['awaiting']})" if d["awaiting"] else ""))
    if d["reopened"]:
        r = d["reopened"]
        lines.append(f"{'opened' if r.get('opens') else 'reopened'} by {r['by']} at {r['at']}: {r['note']}")
    if d.get("closed"):
        lines.append(f"closed: {closed_because(d['closed'])}")
    return "\n".join(lines)


@quarantine_group.command("show")
@click.argument("dispute_id")
@agent_options
@json_option
@documented(DisputeReport)
def quarantine_show(dispute_id, home, agent_id, as_json):
    """One dispute: both claims side by side, with origins, trust, copies and the verdict.

    DISPUTE_ID is a dispute's id, or the id of one of its cases.
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.dispute(dispute_id)
    emit(result, as_json=as_json, text=_render_dispute)


@quarantine_group.command("resolve")
@click.argument("dispute_id")
@click.option("--keep", required=True, help="a, b, both or merged.")
@click.option("--text", help="The corrected statement (merged only): stored as a new memory.")
@click.option("--note", required=True, help="Why: kept with the verdict.")
@click.option("--by", help="Reviewer whose key signs the verdict (`cmem reviewer init`; "
                           "default: the key named $USER, else the only one).")
@click.option("--supersede", is_flag=True, help="Replace the verdict standing on a resolved dispute.")
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@agent_options
@json_option
@documented(DecidedDispute)
def quarantine_resolve(dispute_id, keep, text, note, by, supersede, remote_name, home, agent_id, as_json):
    """Decide a dispute, signed with the reviewer's key, then push it.

    \b
    keep a / keep b: the other side and every memory that says the same thing are
      refuted (recall leaves them out; --as-of before the verdict still finds them);
    both: not a contradiction after all: flags cleared, linked as partly agreeing;
    merged: --text is stored as a new memory whose parents are both sides, and
      both sides are refuted by it.
    It takes effect on each agent whose operator authorised that reviewer, on its own
    copies, once. DISPUTE_ID may name one of its cases (then a and b are that case's).
    Which verdict stands on a case does not depend on its time: a verdict that saw
    another (--supersede, or `quarantine reopen`) stands over it; of two made apart,
    every agent keeps the same one.
    Exit 3: recorded locally, not shared (run `cmem push`); 2: bad input, nothing written.
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.resolve_dispute(dispute_id, keep=keep, text=text, note=note, by=by, remote=remote_name,
                                           supersede=supersede)
    emit(result, as_json=as_json, text=lambda r: f"resolved {r['dispute']}: keep {r['resolution']['keep']} "
         f"({len(r['resolved_cases'])} case(s))" + (f" ({r['awaiting']})" if r["awaiting"] else "")
         + (" (pushed)" if r["quarantine"].get("pushed") else ""))



@quarantine_group.command("reopen")
@click.argument("dispute_id")
@click.option("--note", required=True, help="Why: kept with the reopening.")
@click.option("--by", help="Reviewer whose key signs it (as for resolve).")
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@agent_options
@json_option
@documented(DecidedDispute)
def quarantine_reopen(dispute_id, note, by, remote_name, home, agent_id, as_json):
    """Undo the verdict on a resolved dispute, signed with the reviewer's key, then push it.

    Every agent that honours the reviewer withdraws the verdict (refutations lifted,
    flags set again; trust it moved stays moved) and lists the dispute as escalated.
    Exit 3: recorded locally, not shared (run `cmem push`); 2: bad input, nothing written.
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.reopen_dispute(dispute_id, note=note, by=by, remote=remote_name)
    emit(result, as_json=as_json, text=lambda r: f"reopened {r['dispute']} ({len(r['reopened_cases'])} case(s))"
         + (" (pushed)" if r["quarantine"].get("pushed") else ""))


COMMANDS = (quarantine_group,)
