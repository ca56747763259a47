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
@click.option("--by", help="Reviewer key that signs every decision (`cmem reviewer init`; "
                           "default: the key named $USER, else the only one).")
@click.option("--for", "seconds", type=click.FloatRange(min=0), default=None,
              help="Stop after this many seconds (default: serve until SIGINT or SIGTERM).")
@agent_options
@json_option
def review(host, port, token, by, seconds, home, agent_id, as_json):
    """Serve the review page: open disputes and pending promotions, and their decisions.

    Binds 127.0.0.1 by default. Bound to any other address it needs a token, which the
    browser brings once in the printed address (?token=...) and then keeps in a cookie.
    Each dispute shows both claims side by side (origins, this agent's trust in each,
    similarity, the judge's reason, copies, lineage and each row's Dolt history); the
    actions are those of `cmem quarantine resolve` and `cmem promotions approve|reject`,
    each with a note, signed with the reviewer key. Prints the address once it listens.

    \b
    JSON: {"url", "open" (the address with the token), "agent", "reviewer", "token_required"}
    """
    from ..review import ReviewServer, check_bind

    with cli_errors():
        check_bind(host, token)  # bad input is said before anything is opened
        with open_agent(home, agent_id) as agent:  # the agent exists, whose it is, and who signs
            agent_name, (_, reviewer) = agent.agent_id, agent.reviewer_key(by)
        server = ReviewServer(lambda: open_agent(home, agent_name), reviewer=reviewer, host=host, port=port,
                              token=token)
    try:
        emit({"url": server.url, "open": server.open_url, "agent": agent_name, "reviewer": reviewer,
              "token_required": token is not None}, as_json=as_json,
             text=lambda r: f"reviewing {r['agent']} as {r['reviewer']} at {r['open']}")
        sys.stdout.flush()  # whoever started the page waits for this line
        server.run(seconds)
    finally:
        server.close()
    click.echo("stopped", err=True)


COMMANDS = (review,)
