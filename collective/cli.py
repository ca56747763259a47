"""`cmem`: each command is a thin layer over one Agent call.

Bad input exits 2 with one line naming the field; operational failures exit
1; neither writes anything. Every command takes --json.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from typing import Any, Callable, Iterator

import click

from .errors import BadInput, CollectiveError


class UsageFailure(click.ClickException):
    exit_code = 2


@contextlib.contextmanager
def cli_errors() -> Iterator[None]:
    """BadInput -> exit 2, any other CollectiveError -> exit 1, one line each."""
    try:
        yield
    except BadInput as e:
        raise UsageFailure(str(e)) from e
    except CollectiveError as e:
        raise click.ClickException(str(e).splitlines()[0] if str(e) else type(e).__name__) from e


def emit(value: Any, *, as_json: bool, text: Callable[[Any], str] | None = None) -> None:
    """One output path: JSON for machines, or a plain rendering for people."""
    if as_json:
        click.echo(json.dumps(value, indent=None, sort_keys=False, default=str))
    elif text is not None:
        click.echo(text(value))
    else:
        click.echo(json.dumps(value, indent=2, default=str))


def agent_options(func: Callable) -> Callable:
    @click.option("--home", type=click.Path(file_okay=False), envvar="CMEM_HOME",
                  help="Folder holding the agents (default: $CMEM_HOME or ~/.cmem).")
    @click.option("--agent", "agent_id", envvar="CMEM_AGENT",
                  help="Agent to act as (default: $CMEM_AGENT, cmem.toml, or the only agent).")
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


def open_agent(home: str | None, agent_id: str | None, **kwargs):
    from .agent import Agent  # imported here so `cmem --help` stays fast
    return Agent.open(agent_id, home=home, **kwargs)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="collective-memory")
def cli() -> None:
    """Versioned collective memory for AI agents, on Dolt."""


@cli.command()
@agent_options
@click.option("--exist-ok", is_flag=True, help="Succeed if the agent already exists.")
@json_option
def init(home, agent_id, exist_ok, as_json):
    """Create an agent: its database (branches main and <ID>/working), key pair and own row.

    \b
    JSON: {"agent", "home", "database", "branch", "head", "public_key"}
    """
    from .agent import Agent, DB_FILE
    with cli_errors():
        if not agent_id:
            raise BadInput("agent", "missing: give --agent ID")
        with Agent.init(agent_id, home=home, exist_ok=exist_ok) as agent:
            result = {"agent": agent.agent_id, "home": str(agent.home.root),
                      "database": str(agent.folder / DB_FILE), "branch": agent.branch,
                      "head": agent.repo.head(agent.branch), "public_key": agent.identity.public_key}
    emit(result, as_json=as_json, text=lambda r: f"initialised {r['agent']} in {r['home']} on {r['branch']}")


@cli.command()
@click.argument("content")
@click.option("--category", "-c", default="knowledge", show_default=True,
              help="knowledge, experience, skill, social or emotion.")
@click.option("--tag", "tags", multiple=True, help="A tag; repeat for several.")
@click.option("--importance", default=0.5, show_default=True, type=str, help="Amplitude in (0, 1].")
@click.option("--phase", type=str, help="Stance as radians (0 affirms, pi denies).")
@click.option("--stance", type=str, help="affirm, uncertain or deny.")
@agent_options
@json_option
def store(content, category, tags, importance, phase, stance, home, agent_id, as_json):
    """Store a memory and commit it on the agent's working branch.

    Storing identical content again reinforces the existing memory.

    \b
    JSON: a memory (id, content, summary, category, tags, amplitude, phase,
    stance, origin_agent, ...) plus "deduplicated" and "commit".
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.store(content, category=category, tags=list(tags), importance=importance,
                                 phase=phase, stance=stance)
    emit(result.to_dict(), as_json=as_json,
         text=lambda r: f"{'reinforced' if r['deduplicated'] else 'stored'} {r['id']} "
                        f"(amplitude {r['amplitude']:.2f}, phase {r['phase']:.2f})")


def _render_hits(hits: list[dict]) -> str:
    if not hits:
        return "nothing recalled"
    lines = []
    for n, h in enumerate(hits, 1):
        flag = " [disputed]" if h["disputed"] else ""
        lines.append(f"{n:2}. {h['score']:.3f}  {h['summary']}{flag}  ({h['origin_agent']}, {h['id']})")
    return "\n".join(lines)


@cli.command()
@click.argument("query")
@click.option("-k", "k", default=5, show_default=True, type=int, help="How many memories.")
@click.option("--as-of", help="Recall as of a commit, branch or timestamp.")
@click.option("--include-faded", is_flag=True, help="Include memories whose strength fell below the fade threshold.")
@agent_options
@json_option
def recall(query, k, as_of, include_faded, home, agent_id, as_json):
    """Recall the memories that resonate most with QUERY. Never creates a commit.

    \b
    JSON: [{"id", "score", "similarity", "strength", "access_count", "disputed",
            "summary", "content", "category", "origin_agent", "amplitude", "created_at"}]
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            hits = [h.to_dict() for h in agent.recall(query, k=k, as_of=as_of, include_faded=include_faded)]
    emit(hits, as_json=as_json, text=_render_hits)


@cli.command()
@click.argument("memory_id")
@agent_options
@json_option
def show(memory_id, home, agent_id, as_json):
    """Show one memory with its links and access count.

    \b
    JSON: a memory plus "links" and "access_count".
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.show(memory_id)
    emit(result, as_json=as_json)


@cli.command()
@click.argument("memory_id")
@agent_options
@json_option
def forget(memory_id, home, agent_id, as_json):
    """Retract one of the agent's own memories (kept in history, never deleted).

    \b
    JSON: {"id", "retracted", "changed", "commit"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.forget(memory_id)
    emit(result, as_json=as_json,
         text=lambda r: f"retracted {r['id']}" if r["changed"] else f"{r['id']} was already retracted")


@cli.command()
@click.option("-n", "n", default=20, show_default=True, type=int, help="How many commits.")
@agent_options
@json_option
def log(n, home, agent_id, as_json):
    """The agent's commits, newest first.

    \b
    JSON: [{"commit", "author", "email", "date", "message"}]
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            commits = [c.to_dict() for c in agent.log(n)]
    emit(commits, as_json=as_json,
         text=lambda cs: "\n".join(f"{c['commit'][:12]} {c['date']} {c['author']}: {c['message']}" for c in cs))


@cli.command()
@agent_options
@json_option
def status(home, agent_id, as_json):
    """Agent, engine, branch, head, counts and index state.

    \b
    JSON: {"agent", "home", "engine", "database", "branch", "head",
           "schema_version", "counts": {...}, "index": {...}, "remotes": {...}}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.status()

    def text(s: dict) -> str:
        c = s["counts"]
        idx = s["index"]
        index_line = (f"{idx['count']} vectors, {'current' if idx['current'] else 'stale'}"
                      if idx["built"] else "not built yet")
        return "\n".join([
            f"agent     {s['agent']} ({s['engine']}: {s['database']})",
            f"branch    {s['branch']} at {s['head'][:12]}",
            f"memories  {c['memories']} ({c['own']} own, {c['retracted']} retracted, "
            f"{c['disputed']} disputed, {c['absorbed']} absorbed)",
            f"peers     {c['peers']}, open cases {c['open_cases']}",
            f"index     {index_line}",
        ])
    emit(result, as_json=as_json, text=text)


def main(argv: list[str] | None = None) -> None:
    cli.main(args=argv, prog_name="cmem")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
