"""Dreams: consolidate the agent's memory on a dream branch, and accept a reviewed run."""

from __future__ import annotations

import click

from ..reports import DreamReport, documented
from .common import agent_options, cli_errors, emit, json_option, open_agent, plot_option, progress_bars, write_plot


def _render(r: dict) -> str:
    c = r["counts"]
    lines = [f"dream {r['run']} ({r['mode']}, {r['status']}) on {r['branch']}",
             f"  selected {c['selected']} ({c['changed']} changed, {c['neighbours']} neighbours); "
             f"pairs: {c['constructive']} agree, {c['partial']} partly, {c['destructive']} contradict",
             f"  strengthened {c['strengthened']}, synchronised {c['synchronised']}, linked {c['linked']} "
             f"({c['cross_cluster']} across clusters), faded {c['faded']}, advised {c['advised']}, "
             f"spared {c['spared']}, moved {c['transferred']} to deeper layers",
             f"  clusters {c['clusters']}, coherence {r['coherence']:.3f}; "
             f"stability {r['stability']['before']:.3f} -> {r['stability']['after']:.3f}"]
    lines += [f"  disputed: {p['a']} ~ {p['b']}  {p['reason']}" for p in r["disputed"]]
    lines += [f"  synthesised {s['id']}: {s['summary']}" for s in r["synthesised"]]
    if r["status"] == "review":
        lines.append(f"  waiting for review: cmem dream accept {r['run']}")
    return "\n".join(lines)


@click.group(invoke_without_command=True)
@click.option("--full", is_flag=True, help="Consolidate every memory, not only what changed since the last dream.")
@click.option("--jobs", type=int, default=1, show_default=True, help="Clusters worked on in parallel.")
@click.option("--review", is_flag=True, help="Leave the dream branch unmerged until `cmem dream accept RUN`.")
@agent_options
@json_option
@plot_option("the run's clusters, on a flat map of their meaning,")
@click.pass_context
@documented(DreamReport)
def dream(ctx, full, jobs, review, home, agent_id, as_json, plot_path):
    """Consolidate memory on <agent>/dream/<YYYYmmdd-HHMMSS>, then merge it into working.
    """
    if ctx.invoked_subcommand is not None:
        return
    with cli_errors():
        with open_agent(home, agent_id) as agent, progress_bars(as_json=as_json) as progress:
            result = agent.dream(full=full, jobs=jobs, review=review, progress=progress)
            drawn = agent.dream_map(result["run"]) if plot_path else {}
    emit(result, as_json=as_json, text=_render)
    if plot_path:
        write_plot(plot_path, "dream_clusters", drawn["points"], drawn["clusters"], drawn["orders"],
                   title=f"Dream {drawn['run']}: its clusters")


@dream.command("accept")
@click.argument("run")
@agent_options
@json_option
def accept(run, home, agent_id, as_json):
    """Merge a dream run made with --review into working.

    \b
    JSON: {"run", "branch", "status", "head"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.accept_dream(run)
    emit(result, as_json=as_json, text=lambda r: f"accepted dream {r['run']} ({r['head'][:12]})")


COMMANDS = (dream,)
