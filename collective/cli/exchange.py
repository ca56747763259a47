"""The collective: remotes, push, pull, serving a commons, peers and their trust."""

from __future__ import annotations

import sys

import click

from .common import agent_options, cli_errors, emit, json_option, open_agent, progress_bars


@click.group()
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


@click.command()
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
    for run in r.get("dreams", {}).get("runs", []):
        lines.append(f"dream {run['run']}: " + (f"imported {run['syntheses']} syntheses, {run['links']} links, "
                                                f"{run['clusters']} clusters, {run['prune_hints']} prune hints"
                                                if run["imported"] else f"not imported ({run['reason']})"))
    return "\n".join(lines)


@click.command()
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@click.option("--from", "peers", multiple=True, help="Only this peer; repeat for several.")
@click.option("--dry-run", is_flag=True, help="Print the plan, write nothing.")
@agent_options
@json_option
def pull(remote_name, peers, dry_run, home, agent_id, as_json):
    """Fetch the commons and merge what each peer learned since the last pull.

    \b
    JSON: {"remote", "dry_run", "peers": [{"peer", "head", "status", "commit",
           "summary", "refused", "pairs", "seconds"}], "quarantine",
           "dreams": {"remote", "runs": [{"peer", "run", "imported", ...}]}}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent, progress_bars(as_json=as_json) as progress:
            result = agent.pull(remote_name, peers=list(peers), dry_run=dry_run, progress=progress)
            if not dry_run:
                from dream.artifacts import import_from_peers  # peers' dream artifacts, by trust
                result["dreams"] = import_from_peers(agent, remote_name)
    emit(result, as_json=as_json, text=_render_pull)


@click.command("serve-commons")
@click.argument("folder", type=click.Path())
@click.option("--bind", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=0, type=int, help="Port (0 picks a free one).")
@json_option
def serve_commons(folder, bind, port, as_json):
    """Serve every commons database in FOLDER over HTTP until SIGINT or SIGTERM.

    Prints the server's URL as soon as it listens.

    \b
    JSON: {"url"}
    """
    import signal
    import threading

    from ..store.commons_server import CommonsServer
    stop = threading.Event()
    with cli_errors():
        server = CommonsServer(folder, bind=bind, port=port).start()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        emit({"url": server.url}, as_json=as_json, text=lambda r: r["url"])
        sys.stdout.flush()  # whoever started the server waits for this line
        while not stop.wait(0.5):
            pass
    finally:
        server.stop()
    click.echo("stopped", err=True)


@click.command()
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


@click.command("trust")
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


COMMANDS = (remote, push, pull, serve_commons, agents, trust_cmd)
