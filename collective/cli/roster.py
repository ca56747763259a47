"""The collective's roster: who its agents, reviewers and endorsers are, signed by its owners."""

from __future__ import annotations

import click

from .common import agent_options, cli_errors, emit, json_option, open_agent

by_option = click.option("--by", "by", multiple=True,
                         help="Owner whose key (in this home) signs the new version; repeat for more "
                              "(default: every owner key here).")
remote_option = click.option("--remote", "remote_name", help="Remote to share it on (default: the only one).")


@click.group("collective")
def collective():
    """The collective's roster: agents and their keys, reviewers, endorsers, owners.

    Where an agent follows a roster, only its reviewers' verdicts and decisions take
    effect, only its endorsers count toward consensus, and each agent it names must show
    the key it names. Each version is signed by a threshold of the owners of the last.
    """


def _text(r: dict) -> str:
    lines = [f"{r['collective']} roster version {r['version']} (threshold {r['threshold']} of "
             f"{len(r['owners'])} owner(s); {r['endorsements']} endorsement(s) promote)"]
    lines += [f"  owner     {m['name']:20} {m['fingerprint']}" for m in r["owners"]]
    lines += [f"  agent     {m['name']:20} {m['fingerprint']}{'' if m['endorses'] else '  (does not endorse)'}"
              for m in r["agents"]]
    lines += [f"  reviewer  {m['name']:20} {m['fingerprint']}" for m in r["reviewers"]]
    if r.get("fingerprint"):
        lines.append(f"fingerprint {r['fingerprint']}{'  (pinned here)' if r.get('pinned') else ''}")
    if "pushed" in r:
        lines.append("shared on the commons" if r["pushed"] else "recorded here (no remote, or the commons had it)")
    return "\n".join(lines)


@collective.command("init")
@click.argument("name")
@click.option("--owner", "owners", multiple=True, required=True,
              help="A person who owns the roster (their reviewer key must be in this home); repeat for more.")
@click.option("--threshold", type=int, default=None, help="Owner signatures each new version needs (default: all).")
@click.option("--endorsements", type=int, default=2, show_default=True,
              help="Endorsements by roster endorsers that promote a memory to main.")
@remote_option
@agent_options
@json_option
def collective_init(name, owners, threshold, endorsements, remote_name, home, agent_id, as_json):
    """Make version 1 of collective NAME's roster, signed by its owners, and share it.

    Then name the agents and reviewers: `cmem collective add-agent`, `add-reviewer`.
    Other agents follow the roster from their next pull.

    \b
    JSON: the roster as `cmem collective show --json` prints it, plus "commit", "pushed".
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.init_roster(name, owners=owners, threshold=threshold, endorsements=endorsements,
                                       remote=remote_name)
    emit(result, as_json=as_json, text=_text)


@collective.command("add-agent")
@click.argument("agent")
@click.option("--key", help="Its public key (default: the key of the agent of that id in this home).")
@click.option("--no-endorse", is_flag=True, help="Its endorsements do not count toward consensus.")
@by_option
@remote_option
@agent_options
@json_option
def collective_add_agent(agent, key, no_endorse, by, remote_name, home, agent_id, as_json):
    """A new roster version naming AGENT and its key (replacing the key it named before).

    \b
    JSON: the new version as `cmem collective show --json` prints it, plus "commit", "pushed".
    """
    with cli_errors():
        with open_agent(home, agent_id) as acting:
            result = acting.roster_add_agent(agent, key=key, endorses=not no_endorse, by=by, remote=remote_name)
    emit(result, as_json=as_json, text=_text)


@collective.command("add-reviewer")
@click.argument("name")
@click.option("--key", help="Their public key (default: the reviewer key of that name in this home).")
@by_option
@remote_option
@agent_options
@json_option
def collective_add_reviewer(name, key, by, remote_name, home, agent_id, as_json):
    """A new roster version naming reviewer NAME, whose verdicts and decisions then take effect.

    \b
    JSON: the new version as `cmem collective show --json` prints it, plus "commit", "pushed".
    """
    with cli_errors():
        with open_agent(home, agent_id) as acting:
            result = acting.roster_add_reviewer(name, key=key, by=by, remote=remote_name)
    emit(result, as_json=as_json, text=_text)


@collective.command("remove")
@click.argument("name")
@by_option
@remote_option
@agent_options
@json_option
def collective_remove(name, by, remote_name, home, agent_id, as_json):
    """A new roster version without the agent or reviewer NAME (what it did stays done).

    \b
    JSON: the new version as `cmem collective show --json` prints it, plus "commit", "pushed".
    """
    with cli_errors():
        with open_agent(home, agent_id) as acting:
            result = acting.roster_remove(name, by=by, remote=remote_name)
    emit(result, as_json=as_json, text=_text)


@collective.command("show")
@agent_options
@json_option
def collective_show(home, agent_id, as_json):
    """The roster this agent follows.

    The fingerprint names the roster by its first version: compare it with what the
    owners say out of band, or give it to a new agent (`cmem init --roster`).

    \b
    JSON: {"collective", "version", "threshold", "endorsements", "issued_at",
           "owners": [{"name", "key", "fingerprint"}], "agents": [{"name", "key", "endorses",
           "fingerprint"}], "reviewers": [{"name", "key", "fingerprint"}], "signed_by": [fingerprints],
           "fingerprint": the first version's, "pinned": whether this home pins it}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.roster()
    emit(result, as_json=as_json, text=_text)


COMMANDS = (collective,)
