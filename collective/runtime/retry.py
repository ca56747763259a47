"""Retrying work that lost a race, with capped exponential backoff and jitter.

Two agents pushing the same shared branch, or two transactions on one Dolt
branch, collide; the loser catches up and tries again. Waiting a little
longer each time, by a random amount, keeps the losers from colliding again
in lockstep.
"""

from __future__ import annotations

import random
import time
from typing import Callable, TypeVar

T = TypeVar("T")


def backoff(attempt: int, *, base: float, cap: float, jitter: float, rand: Callable[[], float]) -> float:
    """Seconds to wait before attempt `attempt + 1` (attempt counts from 1)."""
    return min(base * 2 ** (attempt - 1), cap) * (1 + jitter * rand())


def retrying(work: Callable[[], T], *, retry_on: type[BaseException] | tuple[type[BaseException], ...],
             attempts: int = 4, before_retry: Callable[[BaseException], None] | None = None,
             base: float = 0.05, cap: float = 1.0, jitter: float = 0.5,
             sleep: Callable[[float], None] = time.sleep, rand: Callable[[], float] = random.random) -> T:
    """work() until it returns, at most `attempts` times; between tries, `before_retry(error)`
    (catch up, re-read) and a capped, jittered wait. The last failure is raised as is."""
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except retry_on as error:
            if attempt == attempts:
                raise
            if before_retry is not None:
                before_retry(error)
            sleep(backoff(attempt, base=base, cap=cap, jitter=jitter, rand=rand))
    raise AssertionError("unreachable")  # attempts >= 1 returns or raises above
