"""The sync scheduler: what one agent sends and fetches, when, and in which order.

Inside a window (collective.sync.schedule; always, without one) the work is taken in priority order:

0. cases: quarantine cases the commons lacks are pushed at once (a pull that opens a
   case already pushes it in the same step: Quarantine.share_after);
1. burst: a dream finished since the last push: push right away;
2. priority: own memories above `priority_amplitude` not yet pushed: flagged, pushed
   ahead of the rest in the next window;
3. queued: the pulls `cmem listen` queued for the sync window (local_decisions);
4. normal: every `interval` minutes, pull every peer, then push (a commons not made yet has
   nothing to pull, and the push makes it, as `cmem push` does).

Outside a window nothing crosses: the work waits for the next one. The scheduler runs on
a Clock (collective.sync.clock), so tests and the Mars demo drive it with a virtual one. What it
remembers between runs (last normal sync, last pushed head and dream) is in local_state.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Callable

from collective.errors import CollectiveError, NoCommonsYet, one_line
from collective.model import iso
from collective.model.refs import QUARANTINE_BRANCH, tracking
from collective.quarantine.cases import changed_cases, joined
from collective.reports import SyncWindowReport

from . import policy
from .clock import Clock
from .events.receiver import close_satisfied
from .schedule import SyncSettings

if TYPE_CHECKING:
    from collective.agent_sync import SyncPort

log = logging.getLogger("cmem.sync")

CASES, BURST, PRIORITY, QUEUED, NORMAL = "cases", "burst", "priority", "queued", "normal"
ORDER = (CASES, BURST, PRIORITY, QUEUED, NORMAL)
LAST_NORMAL, PUSHED_HEAD, BURST_RUN = "sync.last_normal", "sync.pushed_head", "sync.burst_run"
DREAM_DONE = ("completed", "accepted")
POLL = 30.0  # seconds between looks at the queue inside a window, between normal syncs
RETRY = 30.0  # seconds before work that failed is tried again


@dataclass
class Work:
    kind: str
    reason: str
    detail: dict = field(default_factory=dict)

    @property
    def rank(self) -> int:
        return ORDER.index(self.kind)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "priority": self.rank, "reason": self.reason, **self.detail}


class Scheduler:
    """One agent's sync work on a clock, through the agent's port (Agent.sync_port)."""

    def __init__(self, port: SyncPort, settings: SyncSettings, clock: Clock, *, remote: str | None = None,
                 on_work: Callable[[Work, dict], None] | None = None):
        self.port = port
        self.settings = settings
        self.clock = clock
        self.remote = port.choose_remote(remote)
        self.on_work = on_work

    # --- the queue ------------------------------------------------------------------
    def queue(self, *, due_only: bool = True) -> list[Work]:
        """The work waiting, highest priority first; `due_only=False` adds the normal sync
        even when its interval has not passed."""
        work = [w for w in (self._cases(), self._burst(), self._priority()) if w is not None]
        queued = self._queued()
        if queued is not None:
            work.append(queued)
        if not due_only or self._normal_due():
            work.append(Work(NORMAL, f"every {self.settings.interval:g} min: pull every peer, then push"))
        return sorted(work, key=lambda w: w.rank)

    def _state(self, key: str) -> str | None:
        return self.port.state.get(key)

    def _remember(self, **values: str) -> None:
        with self.port.repo.transaction():
            for key, value in values.items():
                self.port.state.set(key, value)

    def _cases(self) -> Work | None:
        ref = tracking(self.remote, QUARANTINE_BRANCH)
        ours = self.port.cases.all()
        theirs = self.port.cases.by_id(as_of=ref) if ref in self.port.repo.remote_branches() else {}
        missing = changed_cases(joined(list(theirs.values()), ours), theirs)
        if not missing:
            return None
        return Work(CASES, f"{len(missing)} case(s) the commons lacks: at once",
                    {"cases": sorted(c.id for c in missing)})

    def _burst(self) -> Work | None:
        runs = self.port.dream_runs.of_agent(self.port.agent_id, status=list(DREAM_DONE))
        if not runs or runs[-1]["id"] == self._state(BURST_RUN):
            return None
        return Work(BURST, f"dream {runs[-1]['id']} finished: burst push", {"run": runs[-1]["id"]})

    def _priority(self) -> Work | None:
        port, floor = self.port, self.settings.priority_amplitude
        head, pushed = port.repo.head(port.branch), self._state(PUSHED_HEAD)
        if head == pushed:
            return None
        if pushed:
            rows = [c.new for c in port.repo.diff(pushed, head, "memories") if c.new is not None]
        else:
            rows = port.memories.rows(columns=("id", "origin_agent", "amplitude", "retracted"))
        flagged = sorted(r["id"] for r in rows if r["origin_agent"] == port.agent_id
                         and float(r["amplitude"]) > floor and not r["retracted"])
        if not flagged:
            return None
        return Work(PRIORITY, f"{len(flagged)} memory(ies) above amplitude {floor:g}: first in the window",
                    {"flagged": flagged})

    def _queued(self) -> Work | None:
        open_ = self.port.decisions.open(decision=policy.QUEUE)
        if not open_:
            return None
        senders = sorted({d["sender"] for d in open_})
        return Work(QUEUED, f"{len(open_)} event(s) queued by the listener", {"peers": senders})

    def _normal_due(self) -> bool:
        last = self._state(LAST_NORMAL)
        return last is None or self.clock.now() >= datetime.fromisoformat(last) + self.interval

    @property
    def interval(self) -> timedelta:
        return timedelta(minutes=self.settings.interval)

    # --- doing it ---------------------------------------------------------------------
    def plan(self) -> dict:
        """The queue, whether a window is open, and when the next one opens."""
        now = self.clock.now()
        window = self.settings.schedule.window_at(now)
        upcoming = self.settings.schedule.next_window(now)
        last = self._state(LAST_NORMAL)
        return {"now": iso(now), "remote": self.remote, "open": window is not None,
                "schedule": self.settings.schedule.describe() or ["always open"],
                "window": _span(window) if window else None,
                "next_window": _span(upcoming) if upcoming else None,
                "interval_minutes": self.settings.interval, "last_normal": last,
                "queue": [w.to_dict() for w in self.queue()]}

    def step(self, *, whole_window: bool = False) -> list[dict]:
        """Run what is due now, if a window is open; `whole_window`: the normal sync too,
        whatever its interval (`cmem sync once`). What ran, in order; a piece of work that
        failed has an "error" in its result, and the rest still ran."""
        if self.settings.schedule.window_at(self.clock.now()) is None:
            return []
        done: list[dict] = []
        pushed = False
        for work in self.queue(due_only=not whole_window):
            if work.kind in (CASES, BURST, PRIORITY) and pushed:
                result = {"satisfied_by": "an earlier push in this window"}
            else:
                try:
                    result = self._do(work)
                except CollectiveError as e:  # the rest of the window's work still runs
                    result = {"error": one_line(e)}
                pushed = pushed or "push" in result
            if work.kind == BURST and "error" not in result:
                self._remember(**{BURST_RUN: work.detail["run"]})
            done.append({**work.to_dict(), "at": iso(self.clock.now()), "result": result})
            if self.on_work is not None:
                self.on_work(work, result)
        return done

    def once(self) -> SyncWindowReport:
        """One window's work now (`cmem sync once`, the MCP memory_sync): the normal sync too,
        whatever its interval; nothing outside a window."""
        done = self.step(whole_window=True)
        return {"open": self.settings.schedule.window_at(self.clock.now()) is not None, "done": done}

    def _do(self, work: Work) -> dict:
        if work.kind == QUEUED:
            return {"pull": self._pull(work.detail["peers"])}
        if work.kind == NORMAL:
            pulled = self._pull(None)  # then the push carries what the pull merged
            result = {"pull": pulled, "push": self._push()}
            self._remember(**{LAST_NORMAL: self.clock.now().isoformat()})
            return result
        return {"push": self._push()}

    def _push(self) -> dict:
        result = self.port.push(self.remote)
        self._remember(**{PUSHED_HEAD: result["head"]})
        done = {"head": result["head"], "cases": result.get("quarantine", {})}
        if result.get("tampered"):  # our branch as another hand had left it on the commons (put back)
            done["tampered"] = result["tampered"]
        return done

    def _pull(self, peers: list[str] | None) -> dict:
        """Pull these peers (those on the commons), or all; peers' dream artifacts come too.
        The decisions the pull satisfied are closed."""
        port = self.port
        try:
            heads = port.repo.fetch(self.remote)
        except NoCommonsYet:  # nothing to pull yet: the window's push makes the commons
            return {"peers": [], "waiting": peers} if peers is not None else {"peers": [], "new": 0, "cases": {},
                                                                               "dreams": 0}
        if peers is not None:
            on_commons = [p for p in peers if f"{p}/working" in heads]
            if not on_commons:
                return {"peers": [], "waiting": peers}
        result = port.pull(self.remote, peers=on_commons if peers is not None else ())
        pulled = [p["peer"] for p in result["peers"]]
        for peer in pulled:
            close_satisfied(port, peer)
        return {"peers": pulled, "new": sum(p["summary"].get("new", 0) for p in result["peers"]),
                "cases": result.get("quarantine", {}), "dreams": len(result["dreams"]["runs"])}

    def due_in(self) -> float:
        """Seconds until there may be work: the next window, the next normal sync, or a poll."""
        now = self.clock.now()
        window = self.settings.schedule.next_window(now)
        if window is None:
            return POLL
        if window[0] > now:
            return (window[0] - now).total_seconds()
        last = self._state(LAST_NORMAL)
        normal = (datetime.fromisoformat(last) + self.interval - now).total_seconds() if last else 0.0
        return max(0.0, min(normal, POLL, (window[1] - now).total_seconds()))

    def tick(self) -> float:
        """One turn of the daemon: do what is due, logging what failed; then the seconds to
        wait (after a failure at least RETRY, so an unreachable commons is not hammered)."""
        failed = False
        try:
            for done in self.step():
                if "error" in done["result"]:
                    failed = True
                    log.warning("sync %s failed: %s", done["kind"], done["result"]["error"])
            wait = self.due_in()
        except CollectiveError as e:  # reading the queue itself failed: try again later
            failed, wait = True, RETRY
            log.warning("sync failed: %s", one_line(e))
        return max(wait, RETRY if failed else 0.01)

    def run(self, should_stop: Callable[[], bool]) -> None:
        """Until `should_stop()`: do what is due, sleep until the next thing may be."""
        while not should_stop():
            wait = self.tick()
            if should_stop():
                break
            self.clock.sleep(wait)


def scheduler(port: SyncPort, *, remote: str | None = None, clock: Clock | None = None,
              **given) -> Scheduler:
    """The port's scheduler, on cmem.toml's [sync] with what the caller `given` over it
    (windows, daily, interval: None keeps the file's), on the real clock unless named."""
    from .clock import RealClock
    on_work = given.pop("on_work", None)
    settings = port.section(SyncSettings).merged(**given)
    return Scheduler(port, settings, clock or RealClock(), remote=remote, on_work=on_work)


def _span(window: tuple[datetime, datetime]) -> dict:
    start, end = window
    return {"start": iso(start), "end": iso(end) if end.year < 9999 else None}
