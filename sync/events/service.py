"""The long-running side: `listen` (receive, decide, pull; drain the outbox; a periodic
agent.status), `tail` (print events as they arrive) and `flush` (drain once); and
`publish_waiting`, which a command runs once it committed, where a NATS server is named.

The agent's database is used from one worker thread at a time, so the event loop
keeps answering NATS while a pull runs.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import TYPE_CHECKING, Callable, Sequence

from collective.errors import BadInput, one_line
from collective.model import events, iso, utcnow

from .. import policy
from .connection import NatsOptions, connect, durable_subscription, ensure_stream
from .publisher import Backoff, Publisher
from .receiver import Dropped, Outcome, Receiver

if TYPE_CHECKING:
    from collective.agent_sync import SyncPort

log = logging.getLogger("cmem.events")

FETCH_BATCH = 256
KEEP_SENT = timedelta(days=1)  # published events stay this long in the outbox, for inspection


class Listener:
    """An agent listening to its collective (through its port, Agent.sync_port): its durable
    consumer, its publisher, its receiver."""

    def __init__(self, port: SyncPort, options: NatsOptions, settings: policy.PolicySettings | None = None, *,
                 on_outcome: Callable[[Outcome, dict | None], None] | None = None, status_every: float = 60.0,
                 poll: float = 0.2):
        self.port = port
        self.options = options
        self.receiver = Receiver(port, collective=options.collective, settings=settings)
        self.on_outcome = on_outcome
        self.status_every = status_every
        self.poll = poll
        self.db = ThreadPoolExecutor(1, thread_name_prefix="cmem-db")
        self.publisher: Publisher | None = None
        self.stop = asyncio.Event()
        self.ready = asyncio.Event()

    async def in_db(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.db, fn, *args)

    async def run(self) -> None:
        nc = await connect(self.options, name=f"cmem-listen-{self.port.agent_id}")
        try:
            js = nc.jetstream()
            await ensure_stream(js, self.options)
            subscription = await durable_subscription(js, self.options, self.port.agent_id)
            self.publisher = Publisher(self.port.outbox, self.port.identity(), js, db=self.db)
            self.ready.set()
            await asyncio.gather(self._receive(subscription), self.publisher.run(poll=self.poll, stop=self.stop),
                                 self._report_status())
        finally:
            await nc.close()
            self.db.shutdown(wait=True)

    async def _receive(self, subscription) -> None:
        waits = Backoff()
        while not self.stop.is_set():
            try:
                messages = await subscription.fetch(FETCH_BATCH, timeout=0.5)
                waits.reset()
            except asyncio.TimeoutError:  # nothing new (nats' TimeoutError is one too)
                continue
            except Exception as e:  # noqa: BLE001  (disconnected, leader moving: wait and fetch again)
                wait = waits.next_wait()
                log.warning("fetching events failed (%s: %s); again in %.2f s", type(e).__name__, e, wait)
                await asyncio.sleep(wait)
                continue
            arrived = time.perf_counter()
            for message in messages:
                outcome = await self.in_db(self.receiver.take, message.subject, message.data)
                outcome.arrived = arrived
                await message.ack()
                pulled = await self.in_db(self.receiver.act, outcome) if outcome.decision else None
                if self.on_outcome is not None:
                    self.on_outcome(outcome, pulled)

    async def _report_status(self) -> None:
        while not self.stop.is_set():
            await self.in_db(self._write_status)
            self.publisher.wake()
            try:
                await asyncio.wait_for(self.stop.wait(), self.status_every)
            except asyncio.TimeoutError:
                pass

    def _write_status(self) -> None:
        """The periodic agent.status; and the outbox and inbox forget what no one needs again."""
        port = self.port
        now = utcnow()
        with port.repo.transaction():
            port.outbox.prune(sent_before=iso(now - KEEP_SENT))
            port.inbox.prune(received_before=iso(now - timedelta(days=self.options.max_age_days + 1)))
            port.outbox.add(events.status(
                port.agent_id, memories=port.memories.count(), outbox=port.outbox.depth(),
                head=port.repo.head(port.branch), model_version=port.model_version()))


async def flush(port: SyncPort, options: NatsOptions, *, attempts: int = 3) -> dict:
    """Drain the agent's outbox once (retrying a failing NATS a few times); how many went out."""
    nc = await connect(options, name=f"cmem-flush-{port.agent_id}", reconnect=False)
    try:
        js = nc.jetstream()
        await ensure_stream(js, options)
        publisher = Publisher(port.outbox, port.identity(), js)
        published = await publisher.drain_with_retry(attempts=attempts)
    finally:
        await nc.close()
    return {"published": published, "outbox": port.outbox.depth()}


def publish_waiting(port: SyncPort, home) -> dict | None:
    """Publish what a command left in the outbox, once, where a NATS server is named (None
    where none is, or nothing waits). The command's work is committed already: a NATS that
    does not answer fails nothing, and the events wait in the outbox for the next command,
    `cmem events flush` or a listener."""
    if not home.names_nats or not port.outbox.depth():
        return None
    try:
        options = NatsOptions.from_home(home)
    except BadInput as error:  # a typo in the URL is no outage: said every time, not only logged
        print(f"warning: events not published: {one_line(error)}; {port.outbox.depth()} wait in the outbox",
              file=sys.stderr)
        return None
    try:
        return asyncio.run(flush(port, options, attempts=1))
    except Exception as error:  # noqa: BLE001 (whatever NATS raised: the events stay, nothing is lost)
        log.info("events not published now (%s): %d wait in the outbox", error, port.outbox.depth())
        return None


async def tail(port: SyncPort, options: NatsOptions, *, types: Sequence[str] = (),
               on_event: Callable[[dict], None], stop: asyncio.Event, ready: asyncio.Event | None = None) -> None:
    """Every event on the collective (or of these types) as it arrives, checked like a
    receiver checks it; a bad one is printed as dropped, with its reason."""
    receiver = Receiver(port, collective=options.collective)
    nc = await connect(options, name=f"cmem-tail-{port.agent_id}")

    async def handle(message) -> None:
        try:
            envelope = receiver.check(message.subject, message.data)
            on_event(Outcome("received", envelope).to_dict())
        except Dropped as error:
            on_event(receiver.drop(message.subject, error).to_dict() | {"subject": message.subject})

    try:
        subjects = [f"cmem.{options.collective}.*.{t}" for t in types] or [options.subjects]
        for subject in subjects:
            await nc.subscribe(subject, cb=handle)
        await nc.flush()
        if ready is not None:
            ready.set()
        await stop.wait()
    finally:
        await nc.close()
