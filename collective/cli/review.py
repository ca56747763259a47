"""`cmem review`: serve the review web page for one agent's disputes and promotions."""

from __future__ import annotations

import sys

import click

from .common import agent_options, cli_errors, emit, json_option, open_agent


@click.command("review")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="IP address to listen on (or localhost); any but loopback needs --token.")
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="Port (0 picks a free one).")
@click.option("--token", envvar="CMEM_REVIEW_TOKEN",
              help="Access token (default: $CMEM_REVIEW_TOKEN): every request must carry it; "
                   "12 to 256 letters, digits or . _ ~ -.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Another host name (or IP address) the page answers to, as browsers reach it; "
                   "repeatable. Always answered: its own address, and on loopback localhost, 127.0.0.1 "
                   "and [::1].")
@click.option("--by", help="Reviewer key that signs every decision (`cmem reviewer init`; "
                           "default: the key named $USER, else the only one).")
@click.option("--for", "seconds", type=click.FloatRange(min=0), default=None,
              help="Stop after this many seconds (default: serve until SIGINT or SIGTERM).")
@agent_options
@json_option
def review(host, port, token, allow_hosts, by, seconds, home, agent_id, as_json):
    """Serve the review page: open disputes and pending promotions, and their decisions.

    Binds 127.0.0.1 by default. Bound to any other address it needs a token, which the
    browser brings once in the printed address (?token=...) and then keeps in a cookie.
    It answers only requests whose Host header names it: its address, localhost,
    127.0.0.1 and [::1] on loopback, and each --allow-host; any other gets 400 (a page
    on another site whose name was pointed at this machine cannot use it).
    Each dispute shows what differs between the two claims word by word, then both side
    by side (who said each, this agent's trust in them, the agents standing with each,
    lineage and each row's Dolt history); the lists search and filter, and obvious false
    positives take one signed "both stand" verdict each, in bulk. The actions are those of
    `cmem quarantine resolve` (a verdict another reviewer already made is shown first, to
    supersede or reopen) and `cmem promotions approve|reject`, each with a note, signed
    with the reviewer key. /memories lists or searches the memories held, and opens a
    dispute between two that no merge paired. /agents shows every agent of the home, and
    /agents/NAME/ the same pages for that agent. Prints the address once it listens.

    \b
    JSON: {"url", "open" (the address with the token), "agent", "reviewer", "token_required", "hosts"}
    """
    from ..config import Home
    from ..review import ReviewServer, check_bind, page_hosts

    with cli_errors():
        page_hosts(check_bind(host, token), allow_hosts)  # bad input is said before anything is opened
        with open_agent(home, agent_id) as agent:  # the agent exists, whose it is, and who signs
            agent_name, (_, reviewer) = agent.agent_id, agent.reviewer_key(by)
        server = ReviewServer(lambda name=None: open_agent(home, name or agent_name), reviewer=reviewer,
                              agent_names=Home.at(home).agents, host=host, port=port, token=token,
                              allow_hosts=allow_hosts)
    try:
        emit({"url": server.url, "open": server.open_url, "agent": agent_name, "reviewer": reviewer,
              "token_required": token is not None, "hosts": sorted(server.hosts)}, as_json=as_json,
             text=lambda r: f"reviewing {r['agent']} as {r['reviewer']} at {r['open']}")
        sys.stdout.flush()  # whoever started the page waits for this line
        server.run(seconds)
    finally:
        server.close()
    click.echo("stopped", err=True)


COMMANDS = (review,)
