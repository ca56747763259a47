"""Draining the outbox to NATS: sign each event, publish it to JetStream with
`Nats-Msg-Id` = event_id (a resent copy is dropped by the stream), and mark it sent
once acknowledged. A failure leaves the rest in the outbox; the next attempt waits
longer, capped and jittered, so a NATS outage loses nothing and a crowd of agents
does not come back in lockstep.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor

from collective.identity import Identity
from collective.model import iso, utcnow
from collective.store.event_tables import Outbox

from .connection import Backoff
from .signing import signed_message

log = logging.getLogger("cmem.events")

BATCH = 1000
ACK_TIMEOUT_S = 5.0


class Publisher:
    """One agent's outbox, published through one JetStream context. Database work runs on
    `db` (one thread: the agent's connection is used by one thread at a time)."""

    def __init__(self, outbox: Outbox, identity: Identity, js, *, db: Executor | None = None,
                 batch: int = BATCH, ack_timeout: float = ACK_TIMEOUT_S):
        self.outbox = outbox
        self.identity = identity
        self.js = js
        self.db = db
        self.batch = batch
        self.ack_timeout = ack_timeout
        self.backoff = Backoff()
        self.published = 0
        self._wake = asyncio.Event()

    async def _in_db(self, fn, *args):
        if self.db is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self.db, fn, *args)

    def wake(self) -> None:
        """Something was written to the outbox: drain now rather than at the next poll."""
        self._wake.set()

    async def drain(self) -> int:
        """Publish everything in the outbox, batch by batch. Raises on the first failure
        (what was acknowledged before it is marked sent)."""
        total = 0
        while True:
            rows = await self._in_db(self.outbox.unsent, self.batch)
            if not rows:
                return total
            await self._publish(rows)
            await self._in_db(self._mark_sent, [r["event_id"] for r in rows])
            total += len(rows)
            self.published += len(rows)
            if len(rows) < self.batch:
                return total

    def _mark_sent(self, event_ids: list[str]) -> None:
        with self.outbox.repo.transaction():
            self.outbox.mark_sent(event_ids, at=iso(utcnow()))

    async def _publish(self, rows: list[dict]) -> None:
        acks = []
        for row in rows:
            acks.append(await self.js.publish_async(row["subject"], signed_message(row["envelope"], self.identity),
                                                    headers={"Nats-Msg-Id": row["event_id"]}))
        await asyncio.wait_for(asyncio.gather(*acks), self.ack_timeout)

    async def drain_with_retry(self, *, attempts: int | None = None) -> int:
        """drain() until it succeeds (or `attempts` failures), waiting longer after each failure."""
        total = 0
        while True:
            try:
                total += await self.drain()
                self.backoff.reset()
                return total
            except Exception as e:  # noqa: BLE001  (any NATS or timeout failure: wait and retry)
                wait = self.backoff.next_wait()
                log.warning("publishing events failed (%s: %s); retrying in %.2f s", type(e).__name__, e, wait)
                if attempts is not None and self.backoff.failures >= attempts:
                    raise
                await asyncio.sleep(wait)

    async def run(self, *, poll: float = 0.2, stop: asyncio.Event | None = None) -> None:
        """Drain for ever: after each wake() or every `poll` seconds."""
        stop = stop or asyncio.Event()
        while not stop.is_set():
            await self.drain_with_retry()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), poll)
            except asyncio.TimeoutError:
                pass
