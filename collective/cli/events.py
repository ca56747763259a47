"""Events over NATS: `cmem events tail`, `cmem events flush` and `cmem listen`."""

from __future__ import annotations

import contextlib
from typing import Iterator

import click

from ..errors import BadInput
from .common import agent_options, cli_errors, emit, json_option, open_agent


def nats_options(func):
    """--nats and --collective: where the collective's events flow."""
    func = click.option("--collective", envvar="CMEM_COLLECTIVE",
                        help="Collective name: subjects cmem.<collective>.> (default: cmem.toml, or default).")(func)
    return click.option("--nats", "servers", multiple=True, metavar="URL",
                        help="NATS server URL, repeatable for a cluster (default: $CMEM_NATS_URL, [nats] servers "
                             "in cmem.toml, or nats://127.0.0.1:4222).")(func)


def for_option(func):
    return click.option("--for", "seconds", type=click.FloatRange(min=0), default=None,
                        help="Stop after this many seconds (default: run until interrupted).")(func)


@contextlib.contextmanager
def nats_errors() -> Iterator[None]:
    """A NATS failure (no server, timeout) is an operational one: exit 1, one line."""
    import asyncio

    import nats.errors

    try:
        yield
    except (nats.errors.Error, OSError, asyncio.TimeoutError) as e:
        raise click.ClickException(f"NATS: {type(e).__name__}: {e}".rstrip(": ")) from e


def _setup(agent, servers, collective):
    from collective.sync.events.connection import NatsOptions
    return NatsOptions.from_home(agent.home, servers=tuple(servers), collective=collective)


STOP_GRACE = 2.0  # seconds a command asked to stop (--for) may take to finish what it is doing


async def _within(seconds: float | None, stop, work) -> None:
    """Await `work`, setting `stop` after `seconds` (--for) so that it ends; if it is still
    busy (say, waiting for NATS to come back) STOP_GRACE later, it is cancelled."""
    import asyncio

    task = asyncio.ensure_future(work)
    if seconds is not None:
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if not done:
            stop.set()
            done, _ = await asyncio.wait({task}, timeout=STOP_GRACE)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return
    await task


def _reached(ready, options) -> None:
    """A run that never reached NATS, its whole time, failed (exit 1), though it kept retrying."""
    if not ready.is_set():
        raise click.ClickException(f"NATS: no server answered at {', '.join(options.servers)} for the whole run")


def _run(main) -> None:
    """Run a command's coroutine; an interrupt ends it quietly; drops and failures log one line."""
    import asyncio  # not needed for --help or any other command
    import logging

    logging.basicConfig(level=logging.WARNING, format="cmem: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main)


@click.group()
def events():
    """Events this agent's collective signals over NATS (metadata only, signed)."""


@events.command("tail")
@click.option("--type", "types", multiple=True, metavar="TYPE", help="Only events of this type (repeatable).")
@click.option("--count", type=click.IntRange(min=1), default=None, help="Stop after this many events.")
@for_option
@nats_options
@agent_options
@json_option
def tail(types, count, seconds, servers, collective, home, agent_id, as_json):
    """Print events as they arrive, checked against this agent's key registry.

    \b
    JSON (one line per event): {"status": "received"|"dropped", "event_id", "event_type",
          "agent", "entity_id", "ts", "payload", "reason"}
    """
    import asyncio

    from ..model.events import EVENT_TYPES
    from collective.sync.events.service import tail as tail_events

    with cli_errors(), nats_errors():
        for t in types:
            if t not in EVENT_TYPES:
                raise BadInput("type", f"unknown event type {t!r} (known: {', '.join(EVENT_TYPES)})")
        with open_agent(home, agent_id) as agent:
            options = _setup(agent, servers, collective)

            ready = asyncio.Event()

            async def main():
                stop, seen = asyncio.Event(), [0]

                def show(event: dict) -> None:
                    emit(event, as_json=as_json, text=_render_event)
                    seen[0] += 1
                    if count is not None and seen[0] >= count:
                        stop.set()
                await _within(seconds, stop, tail_events(agent.sync_port(), options, types=types, on_event=show,
                                                         stop=stop, ready=ready))
            _run(main())
            _reached(ready, options)


def _render_event(e: dict) -> str:
    if e["status"] == "dropped":
        return f"dropped on {e.get('subject')}: {e['reason']}"
    p = e["payload"]
    detail = " ".join(f"{k}={v}" for k, v in p.items() if k != "summary")
    summary = f"  {p['summary']!r}" if p.get("summary") else ""
    return f"{e['ts']}  {e['agent']}  {e['event_type']}  {e['entity_id']}  {detail}{summary}"


@events.command("flush")
@nats_options
@agent_options
@json_option
def flush(servers, collective, home, agent_id, as_json):
    """Publish what waits in the outbox, once (retrying a failing NATS a few times).

    \b
    JSON: {"published", "outbox"}
    """
    import asyncio

    from collective.sync.events.service import flush as flush_outbox

    with cli_errors(), nats_errors():
        with open_agent(home, agent_id) as agent:
            result = asyncio.run(flush_outbox(agent.sync_port(), _setup(agent, servers, collective)))
    emit(result, as_json=as_json, text=lambda r: f"published {r['published']}; {r['outbox']} left in the outbox")


@click.command()
@click.option("--status-every", type=click.FloatRange(min=1), default=60.0, show_default=True,
              help="Seconds between agent.status events.")
@for_option
@nats_options
@agent_options
@json_option
def listen(status_every, seconds, servers, collective, home, agent_id, as_json):
    """Receive the collective's events: verify, dedupe, decide, and pull a peer when the
    decision is "now" (decisions and their reasons are kept; queued ones wait for the
    sync window). Also drains this agent's outbox and sends agent.status.

    \b
    JSON (one line per event): {"status", "event_id", "event_type", "agent", "entity_id",
          "ts", "payload", "decision", "reason", "pull"}
    """
    from collective.sync.events.service import Listener
    from collective.sync.policy import PolicySettings

    with cli_errors(), nats_errors():
        with open_agent(home, agent_id) as agent:
            options, port = _setup(agent, servers, collective), agent.sync_port()
            settings = port.section(PolicySettings)

            def show(outcome, pulled) -> None:
                if outcome.status in ("handled", "dropped"):
                    emit(outcome.to_dict() | {"pull": pulled}, as_json=as_json, text=_render_decision)

            listener = Listener(port, options, settings, on_outcome=show, status_every=status_every)

            async def main():
                await _within(seconds, listener.stop, listener.run())
            _run(main())
            _reached(listener.ready, options)


def _render_decision(d: dict) -> str:
    if d["status"] == "dropped":
        return f"dropped: {d['reason']}"
    line = f"{d['agent']} {d['event_type']} {d['entity_id']}: {d['decision']} ({d['reason']})"
    pull = d.get("pull")
    if pull:
        line += (f" -> pulled {pull['peer']}: {pull['summary'].get('new', 0)} new" if pull["pulled"]
                 else f" -> pull failed: {pull['error']}")
        if pull["pulled"] and not pull["brought"]:
            line += " (the memory is not on the commons yet: it comes when the sender's push is announced)"
    return line


COMMANDS = (events, listen)
