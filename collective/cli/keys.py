"""Keys: a person's reviewer key, the reviewers an agent honours, rotating the agent's key."""

from __future__ import annotations

import click

from ..reports import KeyRotation, documented
from .common import HOME_FOLDER, agent_options, cli_errors, emit, json_option, open_agent


@click.group()
def reviewer():
    """A person's reviewer key, which signs their verdicts."""


@reviewer.command("init")
@click.option("--name", required=True, help="The reviewer's name, as verdicts will show it.")
@click.option("--home", type=HOME_FOLDER, envvar="CMEM_HOME",
              help="Folder holding the agents (default: $CMEM_HOME or ~/.cmem).")
@json_option
def reviewer_init(name, home, as_json):
    """Make a reviewer key pair, kept 0600 in <home>/reviewers/NAME.pem, outside every agent.

    Prints the public key: each agent's operator authorises it with `cmem reviewers add`.

    \b
    JSON: {"name", "public_key", "fingerprint", "key_file"}
    """
    from ..config import Home
    from ..reviewer_keys import init
    with cli_errors():
        result = init(Home.at(home), name)
    emit(result, as_json=as_json, text=lambda r: f"reviewer {r['name']}: {r['public_key']}\n"
         f"authorise it on an agent with: cmem reviewers add {r['name']} {r['public_key']}")


@click.group()
def reviewers():
    """The reviewers whose verdicts this agent honours."""


@reviewers.command("add")
@click.argument("name")
@click.argument("public_key")
@agent_options
@json_option
def reviewers_add(name, public_key, home, agent_id, as_json):
    """Honour the verdicts signed by PUBLIC_KEY (as `cmem reviewer init` printed it).

    Verdicts of this reviewer kept so far, awaiting an authorised reviewer, take effect.

    \b
    JSON: {"name", "public_key", "added_at", "applied": [case ids]}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.add_reviewer(name, public_key)
    emit(result, as_json=as_json, text=lambda r: f"reviewer {r['name']} authorised"
         + (f"; {len(r['applied'])} verdict(s) applied" if r["applied"] else ""))


@reviewers.command("list")
@agent_options
@json_option
def reviewers_list(home, agent_id, as_json):
    """List the reviewers this agent honours.

    \b
    JSON: [{"name", "public_key", "added_at"}]
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.reviewers()
    emit(result, as_json=as_json,
         text=lambda rows: "\n".join(f"{r['name']:20} {r['public_key']}" for r in rows) or "no reviewers")


@reviewers.command("remove")
@click.argument("name")
@agent_options
@json_option
def reviewers_remove(name, home, agent_id, as_json):
    """Honour no more verdicts of NAME (verdicts applied already stay).

    \b
    JSON: {"name", "public_key", "added_at"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.remove_reviewer(name)
    emit(result, as_json=as_json, text=lambda r: f"reviewer {r['name']} removed")


@click.group()
def key():
    """The agent's own key."""


@key.command("rotate")
@agent_options
@json_option
@documented(KeyRotation)
def key_rotate(home, agent_id, as_json):
    """Replace the agent's key; the new key is signed by the old and published on its branch.

    Peers that hold the old key accept the new one at their next pull (after `cmem push`).
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.rotate_key()
    emit(result, as_json=as_json,
         text=lambda r: f"{r['agent']}: key {r['old_fingerprint']} -> {r['new_fingerprint']}; run cmem push")


COMMANDS = (reviewer, reviewers, key)
