"""Time for the scheduler, the link and the relay: the real one, or a virtual one that
tests and the Mars demo drive, so hours of windows pass in seconds."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current UTC time (aware)."""

    def sleep(self, seconds: float) -> None:
        """Wait this long (or less, when asked to stop)."""


class RealClock:
    """The wall clock; `sleep` wakes early when `stop` is set (SIGTERM, --for)."""

    def __init__(self, stop: threading.Event | None = None):
        self.stop = stop or threading.Event()

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def sleep(self, seconds: float) -> None:
        self.stop.wait(max(seconds, 0.0))


class VirtualClock:
    """A clock that moves only when slept on or advanced: a sleep returns at once."""

    def __init__(self, start: datetime):
        if start.tzinfo is None:
            raise ValueError("a virtual clock starts at an aware UTC time")
        self._now = start.astimezone(timezone.utc)

    def now(self) -> datetime:
        return self._now

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=max(seconds, 0.0))

    def set(self, moment: datetime) -> None:
        """Jump forward to `moment` (never back)."""
        self._now = max(self._now, moment.astimezone(timezone.utc))
