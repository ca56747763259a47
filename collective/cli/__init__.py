"""`cmem`: each command is a thin layer over one Agent call.

Bad input exits 2 with one line naming the field; operational failures exit
1; neither writes anything. Every command takes --json.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from typing import Any, Callable, Iterator

import click

from ..errors import BadInput, CollectiveError


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
    from ..agent import Agent  # imported here so `cmem --help` stays fast
    return Agent.open(agent_id, home=home, **kwargs)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="collective-memory")
def cli() -> None:
    """Versioned collective memory for AI agents, on Dolt."""


@cli.command()
@agent_options
@click.option("--exist-ok", is_flag=True, help="Succeed if the agent already exists.")
@click.option("--backend", envvar="CMEM_BACKEND",
              help="doltlite (embedded, the default) or dolt (a Dolt sql-server).")
@click.option("--dolt-url", help="With --backend dolt: mysql://user:pass@host:port/db of a server you run "
                                  "(default: a server managed in the home).")
@json_option
def init(home, agent_id, exist_ok, backend, dolt_url, as_json):
    """Create an agent: its database (branches main and <ID>/working), key pair and own row.

    \b
    JSON: {"agent", "home", "engine", "database", "branch", "head", "public_key"}
    """
    from ..agent import Agent
    with cli_errors():
        if not agent_id:
            raise BadInput("agent", "missing: give --agent ID")
        with Agent.init(agent_id, home=home, exist_ok=exist_ok, backend=backend, dolt_url=dolt_url) as agent:
            result = {"agent": agent.agent_id, "home": str(agent.home.root), **agent.location.describe(),
                      "branch": agent.branch, "head": agent.repo.head(agent.branch),
                      "public_key": agent.identity.public_key}
    emit(result, as_json=as_json, text=lambda r: f"initialised {r['agent']} ({r['engine']}) in {r['home']} on {r['branch']}")


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


@cli.command("index")
@agent_options
@json_option
def index_cmd(home, agent_id, as_json):
    """Bring the recall index and the judge's analyses up to the head.

    Recall and pull do this when they need to; run it ahead of a sync
    window so that the pull spends the window on what arrives.

    \b
    JSON: {"index": "current"|"updated"|"rebuilt", "count", "analysed"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.prepare()
    emit(result, as_json=as_json,
         text=lambda r: f"index {r['index']}: {r['count']} memories, {r['analysed']} texts analysed")


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


# --- the collective -------------------------------------------------------------

@cli.group()
def remote():
    """Manage the commons this agent pushes to and pulls from."""


@remote.command("add")
@click.argument("name")
@click.argument("url")
@agent_options
@json_option
def remote_add(name, url, home, agent_id, as_json):
    """Add a commons: file:///abs/path/commons.db or http://host:port/name.db.

    \b
    JSON: {"name", "url"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.add_remote(name, url)
    emit(result, as_json=as_json, text=lambda r: f"remote {r['name']} -> {r['url']}")


@remote.command("list")
@agent_options
@json_option
def remote_list(home, agent_id, as_json):
    """List the remotes.

    \b
    JSON: {"NAME": "URL", ...}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.remotes()
    emit(result, as_json=as_json, text=lambda r: "\n".join(f"{k}\t{v}" for k, v in sorted(r.items())) or "no remotes")


@cli.command()
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@agent_options
@json_option
def push(remote_name, home, agent_id, as_json):
    """Push <agent>/working, and collective/quarantine when it has news.

    A non-fast-forward push fetches, merges and retries a few times.

    \b
    JSON: {"remote", "branch", "head", "quarantine": {"pushed", "cases", ...}}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.push(remote_name)
    emit(result, as_json=as_json,
         text=lambda r: f"pushed {r['branch']} ({r['head'][:12]}) to {r['remote']}"
                        + (f"; quarantine: {r['quarantine']['cases']} case(s)" if r["quarantine"]["pushed"] else ""))


def _render_pull(r: dict) -> str:
    lines = []
    for p in r["peers"]:
        s = p["summary"]
        if p["status"] == "unchanged":
            lines.append(f"{p['peer']}: nothing new")
        elif p["status"] == "refused":
            lines.append(f"{p['peer']}: REFUSED ({', '.join(f'{k}={v}' for k, v in p['refused'].items())})")
        else:
            verb = "would merge" if p["status"] == "planned" else "merged"
            lines.append(f"{p['peer']}: {verb} {s['new']} new memories: {s['constructive']} agreed, "
                         f"{s['partial']} partly agreed, {s['destructive']} disputed, {s['independent']} new topics; "
                         f"{s['updated']} updated, {s['retracted']} retracted"
                         + (f"; refused {p['refused']}" if p["refused"] else ""))
            for pair in p["pairs"] if p["status"] == "planned" else ():
                lines.append(f"    {pair['relation']:12} {pair['remote']} ~ {pair['local']}  {pair['reason']}")
    if not r["peers"]:
        lines.append("no peers on the remote yet")
    return "\n".join(lines)


@cli.command()
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@click.option("--from", "peers", multiple=True, help="Only this peer; repeat for several.")
@click.option("--dry-run", is_flag=True, help="Print the plan, write nothing.")
@agent_options
@json_option
def pull(remote_name, peers, dry_run, home, agent_id, as_json):
    """Fetch the commons and merge what each peer learned since the last pull.

    \b
    JSON: {"remote", "dry_run", "peers": [{"peer", "head", "status", "commit",
           "summary", "refused", "pairs", "seconds"}], "quarantine"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.pull(remote_name, peers=list(peers), dry_run=dry_run)
    emit(result, as_json=as_json, text=_render_pull)


@cli.command("serve-commons")
@click.argument("folder", type=click.Path())
@click.option("--bind", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=0, type=int, help="Port (0 picks a free one).")
def serve_commons(folder, bind, port):
    """Serve every commons database in FOLDER over HTTP until SIGINT or SIGTERM."""
    import signal
    import threading

    from .store.commons_server import CommonsServer
    stop = threading.Event()
    with cli_errors():
        server = CommonsServer(folder, bind=bind, port=port).start()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        click.echo(server.url, nl=True)
        sys.stdout.flush()
        while not stop.wait(0.5):
            pass
    finally:
        server.stop()
    click.echo("stopped", err=True)


@cli.command()
@agent_options
@json_option
def agents(home, agent_id, as_json):
    """The peers this agent knows: trust, last sync, key fingerprint, memories held.

    \b
    JSON: [{"agent", "trust", "last_sync", "last_synced_commit", "key_fingerprint", "memories"}]
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.peers()
    emit(result, as_json=as_json,
         text=lambda rows: "\n".join(f"{r['agent']:20} trust {r['trust']:.3f}  memories {r['memories']:6}  "
                                     f"key {r['key_fingerprint']}  last sync {r['last_sync'] or 'never'}"
                                     for r in rows) or "no peers yet")


@cli.command("trust")
@click.argument("peer")
@agent_options
@json_option
def trust_cmd(peer, home, agent_id, as_json):
    """A peer's trust score and the ledger of every change to it.

    \b
    JSON: {"agent", "trust", "events": [{"delta", "score_after", "reason", "evidence", "verifier", "created_at"}]}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.trust_ledger(peer)
    emit(result, as_json=as_json,
         text=lambda r: "\n".join([f"{r['agent']}: trust {r['trust']:.3f}"] + [
             f"  {e['created_at']} {e['delta']:+.3f} -> {e['score_after']:.3f} {e['reason']} (by {e['verifier']})"
             for e in r["events"]]))


@cli.group("quarantine")
def quarantine_group():
    """Disagreements between memories, waiting for a person."""


def _render_cases(cases: list[dict]) -> str:
    if not cases:
        return "no cases"
    return "\n".join(f"{c['id']}  {c['status']:9} disputes {c['dispute_count']}  "
                     f"{c['agent_a']} vs {c['agent_b']}" for c in cases)


@quarantine_group.command("list")
@click.option("--status", help="pending, escalated or resolved.")
@agent_options
@json_option
def quarantine_list(status, home, agent_id, as_json):
    """List quarantine cases.

    \b
    JSON: [{"id", "memory_id_a", "memory_id_b", "agent_a", "agent_b", "similarity",
            "phase_diff", "dispute_count", "status", "resolution", "created_at", "resolved_at"}]
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.cases(status)
    emit(result, as_json=as_json, text=_render_cases)


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

    def text(c: dict) -> str:
        lines = [f"case {c['id']} ({c['status']}, {c['dispute_count']} dispute(s))",
                 f"similarity {c['similarity']:.3f}, phase difference {c['phase_diff']:.3f} rad"]
        for side in ("a", "b"):
            m = c[side]
            lines.append(f"  {side}: [{m.get('origin_agent', '?')}, trust {m['trust']:.2f}] {m.get('content', '(not held)')}")
        if c["resolution"]:
            r = c["resolution"]
            lines.append(f"resolved: keep {r['keep']} by {r['by']}: {r['note']}")
        return "\n".join(lines)
    emit(result, as_json=as_json, text=text)


@quarantine_group.command("resolve")
@click.argument("case_id")
@click.option("--keep", required=True, help="a, b, both or merged.")
@click.option("--note", help="Why.")
@click.option("--by", default=lambda: os.environ.get("USER") or "reviewer", help="Who decided (default: $USER).")
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@agent_options
@json_option
def quarantine_resolve(case_id, keep, note, by, remote_name, home, agent_id, as_json):
    """Record a person's decision on a case, then push it.

    \b
    JSON: the case after resolution plus "commit" and "quarantine".
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.resolve_case(case_id, keep=keep, note=note, by=by, remote=remote_name)
    emit(result, as_json=as_json, text=lambda r: f"resolved {r['id']}: keep {r['resolution']['keep']}"
         + (" (pushed)" if r["quarantine"].get("pushed") else ""))


@cli.command("judge")
@click.argument("a")
@click.argument("b")
@json_option
def judge_cmd(a, b, as_json):
    """How two memories relate: constructive, destructive, partial or independent.

    Prints the relation, a confidence and the reason (which slots matched or
    clashed), as the merge and the dream's detect stage would see them.

    \b
    JSON: {"relation", "confidence", "reason", "matched", "clashed",
           "phase_difference", "similarity"}
    """
    from ..embed import default_embedder
    from ..judge import default_judge
    from ..model import validate_content
    with cli_errors():
        first, second = validate_content(a), validate_content(b)
        vectors = default_embedder().embed([first, second])
        similarity = float(vectors[0] @ vectors[1])
        verdict = default_judge().judge(first, second, similarity)
    result = {**verdict.to_dict(), "similarity": round(similarity, 4)}
    emit(result, as_json=as_json,
         text=lambda r: f"{r['relation']} (confidence {r['confidence']:.2f}, cosine {r['similarity']:.2f}): {r['reason']}")


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="cmem")
        code = 0
    except SystemExit as e:
        code = e.code
    _exit(code)


def _exit(code: Any) -> None:
    """Leave without the interpreter's teardown of onnxruntime, numpy and the rest (about a
    fifth of a `cmem store`): every command has closed what it opened by now, so run the exit
    handlers, flush, and go. With another thread still running, exit the ordinary way."""
    import atexit
    import threading

    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
