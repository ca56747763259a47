"""The collective: remotes, push, pull, serving a commons, peers and their trust."""

from __future__ import annotations

import sys

import click

from ..errors import HistoryRewritten, NotShared, one_line
from ..reports import KeyDecision, PeerReport, PullReport, PushReport, TrustLedger, documented, shape_lines
from .common import (NotSharedFailure, agent_options, cli_errors, emit, json_option, open_agent, plot_option,
                     progress_bars, write_plot)


@click.group()
def remote():
    """Manage the commons this agent pushes to and pulls from."""


@remote.command("add")
@click.argument("name")
@click.argument("url")
@agent_options
@json_option
def remote_add(name, url, home, agent_id, as_json):
    """Add a commons: file:///abs/path/commons.db or http(s)://host:port/name.db.

    A file that is no commons is refused (exit 2); a path with nothing there
    yet is accepted, and the first push makes the commons.

    \b
    JSON: {"name", "url", "commons": true (there), false (not yet) or null (a server)}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.add_remote(name, url)
    emit(result, as_json=as_json, text=_render_remote)


@remote.command("remove")
@click.argument("name")
@agent_options
@json_option
def remote_remove(name, home, agent_id, as_json):
    """Forget a remote. What was taken through it stays (peers, cases, trust).

    \b
    JSON: {"name", "url", "removed"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.remove_remote(name)
    emit(result, as_json=as_json, text=lambda r: f"removed remote {r['name']} ({r['url']})")


@remote.command("set-url")
@click.argument("name")
@click.argument("url")
@agent_options
@json_option
def remote_set_url(name, url, home, agent_id, as_json):
    """Point a remote at another commons (checked as `remote add` checks one).

    \b
    JSON: {"name", "url", "previous", "commons"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.set_remote_url(name, url)
    emit(result, as_json=as_json, text=_render_remote)


def _render_remote(r: dict) -> str:
    state = {True: "", False: " (no commons there yet: the first push makes it)",
             None: " (a server: checked at the first pull or push)"}[r["commons"]]
    return f"remote {r['name']} -> {r['url']}{state}"


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
@documented(PushReport)
def push(remote_name, home, agent_id, as_json):
    """Push <agent>/working, and collective/quarantine when it has news.

    Only this agent writes its branch: the commons' copy is never merged in. When
    the commons holds there anything but this agent's head or an ancestor of it
    (another hand wrote it), that is refused, said on stderr and under "tampered"
    (branch_tampered), and this agent's branch is put back. Exit 3: the branch was
    pushed but the cases were not shared (run it again).
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            try:
                result = agent.push(remote_name)
            except NotShared as e:  # the branch went: say what it found there before exit 3
                _warn_tampered(e.result)
                raise
    _warn_tampered(result)
    emit(result, as_json=as_json,
         text=lambda r: f"pushed {r['branch']} ({r['head'][:12]}) to {r['remote']}"
                        + (f"; quarantine: {r['quarantine']['cases']} case(s)" if r["quarantine"]["pushed"] else ""))


def _warn_tampered(result: dict) -> None:
    t = result.get("tampered")
    if t:
        click.echo(f"WARNING: {result['remote']} held {t['branch']} at {t['found'][:12]}, which this agent never "
                   f"made: refused ({t['reason']}), and put back to {t['restored'][:12]}", err=True)


def _render_pull(r: dict) -> str:
    lines = []
    # "nothing new" only when the pull changed nothing here: a verdict, a case or a
    # promotion may arrive while every peer's branch stands still
    dreams = (r.get("dreams") or {}).get("runs", [])
    quiet = not any((r.get("applied") or {}).values()) and not any(run["imported"] for run in dreams)
    for p in r["peers"]:
        s = p["summary"]
        if p["status"] == "unchanged":
            lines.append(f"{p['peer']}: " + ("nothing new" if quiet else "no new memories"))
        elif p["status"] == "refused":
            lines.append(f"{p['peer']}: REFUSED ({', '.join(f'{k}={v}' for k, v in p['refused'].items())})")
            if p.get("history"):
                lines.append(f"    {HistoryRewritten(p['peer'], **p['history'])}")
        else:
            verb = "would merge" if p["status"] == "planned" else "merged"
            lines.append(f"{p['peer']}: {verb} {s['new']} new memories: {s['constructive']} agreed, "
                         f"{s['partial']} partly agreed, {s['destructive']} disputed, {s['independent']} new topics; "
                         f"{s['updated']} updated, {s['retracted']} retracted"
                         + (f"; refused {p['refused']}" if p["refused"] else ""))
            for pair in p["pairs"] if p["status"] == "planned" else ():
                # a and b as the judge read them: this agent's memory first. A dispute that
                # follows orders its sides by memory id, so each side names its agent here too.
                lines.append(f"    {pair['relation']:12} a (here) {pair['local']} ~ b ({p['peer']}) {pair['remote']}"
                             f"  {pair['reason']}")
    for p in r["peers"]:
        if p.get("key", {}).get("first_sighting"):
            lines.append(f"{p['peer']}: first sighting, key {p['key']['first_sighting']}")
        if p.get("key", {}).get("rotated"):
            lines.append(f"{p['peer']}: key rotated to {p['key']['rotated']} (signed by the key held)")
        if p.get("key", {}).get("let_go") or p.get("let_go"):
            lines.append(f"{p['peer']}: let go {p['let_go']} memories signed by a key the roster does not name"
                         + (f" ({p['key']['let_go']})" if p.get("key", {}).get("let_go") else ""))
    lines += _applied_lines(r.get("applied") or {})
    for reason, ids in (r.get("refused", {}).get("collective/quarantine") or {}).items():
        lines.append(f"collective/quarantine: REFUSED {len(ids)} row(s) ({reason}): {', '.join(ids)}")
    if not r["peers"]:
        lines.append("no peers on the remote yet")
    for run in (r.get("dreams") or {}).get("runs", []):
        lines.append(f"dream {run['run']}: " + (f"imported {run['syntheses']} syntheses, {run['links']} links, "
                                                f"{run['clusters']} clusters, {run['prune_hints']} prune hints"
                                                if run["imported"] else f"not imported ({run['reason']})"))
    return "\n".join(lines)


def _applied_lines(done: dict) -> list[str]:
    """What the shared branches brought (the peers' memories have their own lines)."""
    lines = []
    if done.get("verdicts"):
        lines.append(f"verdicts applied: {', '.join(d[:12] for d in done['verdicts'])}")
    if done.get("reopened"):
        lines.append(f"reopened: {', '.join(d[:12] for d in done['reopened'])}")
    if done.get("cases"):
        lines.append(f"collective/quarantine: took {done['cases']} case row(s), {len(done['opened'])} new")
    if done.get("promotions") or done.get("promoted") or done.get("consensus_moved"):
        lines.append(f"promotions: took {done['promotions']} row(s), {done['promoted']} promoted"
                     + ("; main moved to the commons' main" if done["consensus_moved"] else ""))
    if done.get("roster") is not None:
        lines.append(f"roster: took version {done['roster']}")
    return lines


@click.command()
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@click.option("--from", "peers", multiple=True, help="Only this peer; repeat for several.")
@click.option("--dry-run", is_flag=True, help="Print the plan, write nothing.")
@click.option("--allow-refused", is_flag=True, help="Exit 0 even when rows or keys were refused.")
@agent_options
@json_option
@documented(PullReport)
def pull(remote_name, peers, dry_run, allow_refused, home, agent_id, as_json):
    """Fetch the commons and merge what each peer learned since the last pull.

    Rows that do not verify (forged, tampered, unsigned, replayed, or a verdict
    or decision by no reviewer of the roster), keys that changed without a signed
    rotation or that the roster does not name, a peer the roster does not name
    (not_on_roster: held until a version names it), a peer whose branch no longer
    descends from the head last taken from it (rolled back or rewritten: nothing
    of it is taken), a commons' main holding a memory not promoted as the rules
    say (not followed), and a roster that went back or forked are refused and
    named; the pull then exits 1 after taking the rest, unless --allow-refused.
    Exit 3: merged here, not shared.
    """
    unshared = None
    with cli_errors():
        with open_agent(home, agent_id) as agent, progress_bars(as_json=as_json) as progress:
            try:
                result = agent.pull(remote_name, peers=list(peers), dry_run=dry_run, progress=progress)
            except NotShared as e:  # merged here: the report is still what happened
                unshared, result = e, e.result
    emit(result, as_json=as_json, text=_render_pull)
    if unshared is not None:
        raise NotSharedFailure(one_line(unshared))
    if result["refused"] and not allow_refused:
        raise click.ClickException("refused data from " + ", ".join(
            f"{source} ({', '.join(sorted(reasons))})" for source, reasons in sorted(result["refused"].items()))
            + "; --allow-refused exits 0")


@click.command("serve-commons")
@click.argument("folder", type=click.Path())
@click.option("--bind", default="127.0.0.1", show_default=True,
              help="IPv4 address to listen on; any but loopback needs --auth-keys.")
@click.option("--port", default=0, type=int, help="Port (0 picks a free one).")
@click.option("--cert", type=click.Path(), help="TLS certificate (PEM): serve https.")
@click.option("--key", type=click.Path(), help="The certificate's private key (PEM).")
@click.option("--auth-keys", type=click.Path(),
              help="Folder of authorised public keys (cmem credential --export): every request needs one.")
@click.option("--audience", help="With --auth-keys: the host name clients reach the commons by.")
@click.option("--allow-create", is_flag=True,
              help="A push to a NAME.db that is not in FOLDER creates it (default: refused).")
@json_option
def serve_commons(folder, bind, port, cert, key, auth_keys, audience, allow_create, as_json):
    """Serve every commons database (NAME.db) in FOLDER over HTTP until SIGINT or SIGTERM.

    On loopback (the default) it may run open: any local process can read and push.
    Bound to any other address it refuses to start (exit 2) without --auth-keys, which
    needs --cert, --key and --audience too: then it serves https and refuses any read or
    push without a credential it knows (doltlite's own checks). A push to a database
    that is not there yet creates it only with --allow-create; a name that is not
    NAME.db is always refused. Clients trust a private certificate through
    DOLTLITE_CA_FILE. Prints the server's URL as soon as it listens.

    \b
    JSON: {"url", "authenticated", "allow_create"}
    """
    import signal
    import threading

    from ..store.commons_server import CommonsServer
    stop = threading.Event()
    with cli_errors():
        server = CommonsServer(folder, bind=bind, port=port, cert=cert, key=key, auth_keys=auth_keys,
                               audience=audience, allow_create=allow_create).start()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        emit({"url": server.url, "authenticated": server.authenticated, "allow_create": server.allow_create},
             as_json=as_json, text=lambda r: r["url"])
        sys.stdout.flush()  # whoever started the server waits for this line
        while not stop.wait(0.5):
            pass
    finally:
        server.stop()
    click.echo("stopped", err=True)


@click.command()
@click.option("--export", "export_to", type=click.Path(),
              help="Write the public key into this folder (a commons' --auth-keys).")
@agent_options
@json_option
def credential(export_to, home, agent_id, as_json):
    """This agent's credential for an authenticated commons (made if missing).

    The private key stays in the agent's folder (0600); only its public half is
    exported, into the folder a commons server reads with --auth-keys.

    \b
    JSON: {"id", "public_key", "folder", "exported_to"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.credential(export_to=export_to)
    emit(result, as_json=as_json,
         text=lambda r: f"credential {r['id']}" + (f" -> {r['exported_to']}" if r["exported_to"] else ""))


def _render_agents(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        trust = "  -  " if r["trust"] is None else f"{r['trust']:.3f}"
        lines.append(f"{r['agent']:20} trust {trust}  memories {r['memories']:6}  "
                     f"key {r['key_fingerprint']}  last sync {r['last_sync'] or 'never'}")
        if r["key_warning"]:
            lines.append(f"  WARNING: {r['key_warning']}")
        if r.get("held"):
            lines.append(f"  HELD ({r['held']}): nothing of it is taken until the roster names it")
    return "\n".join(lines) or "no peers yet"


@click.group(invoke_without_command=True)
@agent_options
@json_option
@plot_option("every peer's trust over time")
@click.pass_context
@documented(PeerReport, many=True)
def agents(ctx, home, agent_id, as_json, plot_path):
    """The peers this agent knows: trust, last sync, key fingerprint, memories held.

    A peer whose key changed without a rotation signed by the key held, or an agent
    first met with a key another peer holds differently (trust null), is shown with
    a warning until `cmem agents accept-key` or `reject-key`. On an agent that follows
    a roster, an agent on the commons the roster does not name is shown held
    (not_on_roster): nothing of it is taken until a version names it.
    """
    if ctx.invoked_subcommand is not None:
        return
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.peers()
            history = agent.trust_history() if plot_path else {}
    emit(result, as_json=as_json, text=_render_agents)
    write_plot(plot_path, "trust_over_time", history)


def _key_decision(name: str, *, accept: bool, summary: str) -> None:
    """`agents accept-key` and `agents reject-key`: one person's decision each."""
    @agents.command(name, help=f"{summary}\n\n\b\n" + "\n".join(shape_lines(KeyDecision)))
    @click.argument("peer")
    @agent_options
    @json_option
    def decide(peer, home, agent_id, as_json):
        with cli_errors():
            with open_agent(home, agent_id) as agent:
                result = agent.decide_key(peer, accept=accept)
        emit(result, as_json=as_json, text=lambda r: f"{r['agent']}: key {r['key_fingerprint']} {r['decision']}")


_key_decision("accept-key", accept=True,
              summary="Take the new key PEER showed (no signed rotation explained it) as its key.")
_key_decision("reject-key", accept=False, summary="Refuse the new key PEER showed: its pulls stay refused.")


@click.command("trust")
@click.argument("peer")
@agent_options
@json_option
@plot_option("PEER's trust over time")
@documented(TrustLedger)
def trust_cmd(peer, home, agent_id, as_json, plot_path):
    """A peer's trust score and the ledger of every change to it.
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.trust_ledger(peer)
            history = agent.trust_history(peer) if plot_path else {}
    write_plot(plot_path, "trust_over_time", history, title=f"Trust in {peer}")
    emit(result, as_json=as_json,
         text=lambda r: "\n".join([f"{r['agent']}: trust {r['trust']:.3f}"] + [
             f"  {e['created_at']} {e['delta']:+.3f} -> {e['score_after']:.3f} {e['reason']} (by {e['verifier']})"
             for e in r["events"]]))


COMMANDS = (remote, push, pull, serve_commons, credential, agents, trust_cmd)
