"""Sync windows: `cmem sync plan|once|run` for one agent, `cmem sync relay` between two sites."""

from __future__ import annotations

import contextlib
from typing import Iterator

import click

from ..reports import SyncWindowReport, documented
from .common import agent_options, cli_errors, emit, json_option, open_agent
from .events import STOP_GRACE, for_option, nats_errors, nats_options


def agent_sync_options(func):
    """--remote, the windows, --interval, --home, --agent and --json: what plan, once and run share."""
    func = click.option("--interval", type=float, default=None,
                        help="Minutes between normal pulls and pushes inside a window (default: [sync] or 15).")(func)
    func = json_option(agent_options(window_options(func)))
    return click.option("--remote", default=None, help="Remote to sync with (default: cmem.toml or origin).")(func)


def window_options(func):
    """--window and --daily: when sync may cross (over [sync] in cmem.toml)."""
    func = click.option("--daily", multiple=True, metavar="HH:MM-HH:MM",
                        help="A daily UTC window, repeatable (instead of [sync] daily).")(func)
    return click.option("--window", "windows", multiple=True, metavar="START/END",
                        help="A UTC window such as 2026-12-01T10:00Z/2026-12-01T10:30Z, repeatable "
                             "(instead of [sync] windows).")(func)


def _scheduler(agent, remote, windows, daily, interval, **kwargs):
    from collective.sync.windows import scheduler
    return scheduler(agent.sync_port(), remote=remote, windows=windows, daily=daily, interval=interval, **kwargs)


def _render_plan(p: dict) -> str:
    if p["schedule"] == ["always open"]:
        state = "always open"
    else:
        state = f"open until {p['window']['end']}" if p["open"] else "closed"
        state += f"; next window {p['next_window']['start'] if p['next_window'] else 'none scheduled'}"
    lines = [f"window {state}; every {p['interval_minutes']:g} min with {p['remote']}"]
    lines += [f"  {w['priority']} {w['kind']}: {w['reason']}" for w in p["queue"]] or ["  nothing queued"]
    return "\n".join(lines)


def _render_done(d: dict) -> str:
    failed = f"  FAILED: {d['result']['error']}" if "error" in d["result"] else ""
    return f"{d['at']}  {d['kind']}: {d['reason']}{failed}"


@click.group("sync")
def sync_group():
    """Scheduled sync: windows, priorities, and the relay between two sites' commons."""


@sync_group.command("plan")
@agent_sync_options
def plan(remote, windows, daily, interval, home, agent_id, as_json):
    """The sync queue (highest priority first) and the next window.

    \b
    JSON: {"now", "remote", "open", "window": {"start", "end"}, "next_window", "interval_minutes",
           "last_normal", "queue": [{"kind", "priority", "reason", ...}]}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = _scheduler(agent, remote, windows, daily, interval).plan()
    emit(result, as_json=as_json, text=_render_plan)


@sync_group.command("once")
@agent_sync_options
@documented(SyncWindowReport)
def once(remote, windows, daily, interval, home, agent_id, as_json):
    """One window's work now, for cron: cases, burst, priority, queued pulls, then a pull of
    every peer and a push. Outside a window nothing is done. Exit 1 when a piece of work
    failed (the rest was done; the report names it).
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = _scheduler(agent, remote, windows, daily, interval).once()
    emit(result, as_json=as_json, text=_render_once)
    failed = [d for d in result["done"] if "error" in d["result"]]
    if failed:
        raise click.ClickException(f"{len(failed)} of {len(result['done'])} piece(s) of sync work failed, the rest "
                                   f"was done: {failed[0]['kind']}: {failed[0]['result']['error']}")


def _render_once(r: dict) -> str:
    if not r["open"]:
        return "window closed: nothing done"
    return "\n".join(map(_render_done, r["done"])) or "nothing to do"


@contextlib.contextmanager
def _stopping(seconds: float | None) -> Iterator:
    """An event set by SIGTERM, SIGINT or after `seconds` (--for)."""
    import signal
    import threading

    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    timer = threading.Timer(seconds, stop.set) if seconds is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        yield stop
    finally:
        if timer is not None:
            timer.cancel()
        for s, handler in previous.items():
            signal.signal(s, handler)


@sync_group.command("run")
@agent_sync_options
@click.option("--listen", "listening", is_flag=True,
              help="Also listen to the collective's events over NATS (as `cmem listen`).")
@for_option
@nats_options
def run(remote, listening, windows, daily, interval, seconds, servers, collective, home, agent_id, as_json):
    """Sync in windows until stopped (SIGTERM or SIGINT end it cleanly, after the work in hand).

    \b
    JSON (one line per piece of work): {"kind", "priority", "reason", "result"}
    """
    from collective.sync.clock import RealClock

    with cli_errors(), nats_errors():
        with open_agent(home, agent_id) as agent, _stopping(seconds) as stop:
            scheduler = _scheduler(agent, remote, windows, daily, interval, clock=RealClock(stop),
                                   on_work=lambda w, r: emit({**w.to_dict(), "result": r}, as_json=as_json,
                                                             text=lambda d: f"{d['kind']}: {d['reason']}"))
            if listening:
                _run_listening(agent, scheduler, stop, servers, collective, as_json)
            else:
                scheduler.run(stop.is_set)
    click.echo("stopped", err=True)


def _run_listening(agent, scheduler, stop, servers, collective, as_json) -> None:
    """The scheduler beside a NATS listener, on the listener's database thread."""
    import asyncio
    import threading

    from collective.sync.events.service import Listener
    from collective.sync.policy import PolicySettings

    from .events import _render_decision, _setup

    queued = threading.Event()  # a decision to queue wakes the scheduler: the window may be open

    def show(outcome, pulled) -> None:
        if outcome.status in ("handled", "dropped"):
            emit(outcome.to_dict() | {"pull": pulled}, as_json=as_json, text=_render_decision)
        if outcome.decision is not None and outcome.decision.action == "queue":
            queued.set()

    async def main():
        listener = Listener(scheduler.port, _setup(agent, servers, collective),
                            scheduler.port.section(PolicySettings), on_outcome=show)

        async def windows():
            loop = asyncio.get_running_loop()
            while not stop.is_set():
                until = loop.time() + await listener.in_db(scheduler.tick)
                while not stop.is_set() and not queued.is_set() and loop.time() < until:
                    await asyncio.sleep(min(0.2, until - loop.time()))
                queued.clear()
            listener.stop.set()

        async def scheduled():
            await listener.ready.wait()
            await windows()
        task = asyncio.ensure_future(asyncio.gather(listener.run(), scheduled()))
        while not task.done() and not stop.is_set():
            await asyncio.wait({task}, timeout=0.1)
        listener.stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, STOP_GRACE)
    with contextlib.suppress(asyncio.TimeoutError):
        asyncio.run(main())


def _site(text: str, field: str):
    from collective.sync.link import Site
    from ..errors import BadInput
    name, sep, commons = text.partition("=")
    if not sep:
        raise BadInput(field, f"{text!r} is not NAME=COMMONS_URL, e.g. mars=file:///srv/mars/commons.db")
    return Site(name, commons)


@sync_group.command("relay")
@click.argument("site_a", metavar="NAME=URL")
@click.argument("site_b", metavar="NAME=URL")
@click.option("--state", "folder", type=click.Path(file_okay=False), required=True,
              help="The relay's folder: its mirrors and journals (resumes from there).")
@click.option("--delay", type=float, default=None, help="One-way link delay in seconds (default: [sync] or 0).")
@click.option("--capacity", type=int, default=None,
              help="Branch copies leaving per window and direction, 0 for no limit (default: [sync] or 0).")
@click.option("--poll", type=click.FloatRange(min=0.01), default=5.0, show_default=True,
              help="Seconds between looks at the commons inside a window.")
@click.option("--until-idle", is_flag=True, help="Stop once nothing is in flight and nothing moved.")
@window_options
@for_option
@click.option("--home", type=click.Path(file_okay=False), envvar="CMEM_HOME",
              help="Folder whose cmem.toml [sync] gives defaults (default: $CMEM_HOME or ~/.cmem).")
@json_option
def relay(site_a, site_b, folder, delay, capacity, poll, until_idle, windows, daily, seconds, home, as_json):
    """Copy branches between two sites' commons, inside windows and one link delay late.

    \b
    JSON (one line per copy): {"event": "departed"|"landed"|"refused", "from", "to",
          "branch", "head", "priority", "at"}
    """
    from collective.config import Home
    from collective.sync.clock import RealClock
    from collective.sync.link import Link
    from collective.sync.relay import Relay
    from collective.sync.schedule import SyncSettings

    with cli_errors():
        settings = Home.at(home).section(SyncSettings).merged(windows=windows, daily=daily, delay=delay,
                                                              capacity=capacity)
        link = Link(_site(site_a, "site_a"), _site(site_b, "site_b"), settings.schedule, settings.delay,
                    settings.capacity, settings.priority_amplitude)
        with _stopping(seconds) as stop, Relay(link, folder, RealClock(stop),
                                               report=lambda e: emit(e, as_json=as_json, text=_render_copy)) as r:
            r.run(stop.is_set, poll=poll, until_idle=until_idle)
    click.echo("stopped", err=True)


def _render_copy(e: dict) -> str:
    if e["event"] == "refused":
        return f"{e['at']}  {e['from']} -> {e['to']}  {e['branch']} refused: {e['reason']}"
    return f"{e['at']}  {e['from']} -> {e['to']}  {e['event']} {e['branch']} ({e['priority']}) {e['head'][:12]}"


COMMANDS = (sync_group,)
