"""`cmem`: each command is a thin layer over one Agent call.

Bad input exits 2 with one line naming the field; operational failures exit
1; neither writes anything. Work committed locally that the commons did not
get exits 3 ("recorded locally, not shared: run cmem push"). Every command
takes --json, but for `cmem mcp`, whose standard output is the protocol.

The commands live by topic: memory (one agent's own), exchange (remotes, push,
pull, peers), quarantine, promotions (to main), keys (reviewers, rotation), roster (the
collective's), judge,
events (NATS), dream, sync (windows and the relay between sites), mcp (the MCP server)
and review (the web page); common holds what they share.
"""

from __future__ import annotations

from ..runtime import blas_threads  # noqa: F401  (first: before anything loads numpy)

import os
import sys
from typing import Any

import click

from . import dream, events, exchange, judge, keys, mcp, memory, promotions, quarantine, review, roster, sync
from .common import OneLineErrors, strict_text


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="collective-memory")
def cli() -> None:
    """Versioned collective memory for AI agents, on Dolt."""


for _topic in (memory, exchange, quarantine, promotions, keys, roster, judge, events, dream, sync, mcp, review):
    for _command in _topic.COMMANDS:
        cli.add_command(_command)
del _topic, _command
strict_text(cli)  # every text argument and option of every command: UTF-8 without NUL, or exit 2


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
