"""Pure-Python work on every core, by forking.

The judge is Python through and through, so threads would take turns on one
core. A forked child inherits what the parent holds (the judge's analyses,
the candidate rows) without copying or pickling it; only its results travel
back, pickled, through a pipe. Children never touch the parent's database
connection or files and leave with os._exit, so nothing of the parent's is
flushed, closed or unlocked twice.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import signal
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TypeVar

from ..errors import CollectiveError

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")


class WorkerFailed(CollectiveError):
    """A forked worker raised or died; the parent wrote nothing on its behalf."""


def cores() -> int:
    """CPUs this process may run on (threads that release the GIL can use them all)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def workers() -> int:
    """How many processes can work at once here (1 where there is no fork)."""
    return cores() if hasattr(os, "fork") else 1


def split(items: Sequence[T], parts: int) -> list[Sequence[T]]:
    """`parts` contiguous slices of near-equal size (fewer when there are fewer items)."""
    if not items:
        return []
    parts = max(1, min(parts, len(items)))
    step = -(-len(items) // parts)
    return [items[i:i + step] for i in range(0, len(items), step)]


class Forked:
    """fn over each chunk, each in a child forked at once; `results()` waits for them in order,
    so this process can work meanwhile. Leaving the block stops and reaps any child not collected."""

    def __init__(self, fn: Callable[[T], R], chunks: Sequence[T]):
        self._children: list[tuple[int, int]] = []
        try:
            for chunk in chunks:
                read_end, write_end = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child: compute, send, leave without running any of the parent's cleanup
                    os.close(read_end)
                    signal.signal(signal.SIGINT, signal.SIG_DFL)
                    _run_child(fn, chunk, write_end)
                os.close(write_end)
                self._children.append((pid, read_end))
        except BaseException:
            self.close()
            raise

    def results(self) -> Iterator[R]:
        while self._children:
            pid, read_end = self._children.pop(0)
            yield _collect(pid, read_end)

    def close(self) -> None:
        while self._children:
            pid, read_end = self._children.pop()
            os.close(read_end)
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass

    def __enter__(self) -> "Forked":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Shared:
    """fn over `chunk`-sized slices of items, done by children forked at once and by this
    process when it asks for the results. Each takes the next slice nobody took (children
    forward from their own starting points, this process backward from the end), so the work
    divides by how fast each went, however busy the machine is. Two that look at one slice
    at the same moment both compute it: fn must give the same result for the same slice."""

    def __init__(self, fn: Callable[[Sequence[T]], list[R]], items: Sequence[T], *, children: int, chunk: int):
        self._fn, self._items, self._chunk = fn, items, chunk
        self._count = -(-len(items) // chunk)
        children = max(0, min(children, self._count - 1))
        # one byte a slice, set by whoever takes it; an anonymous map is shared with the children
        self._taken = mmap.mmap(-1, max(1, self._count))
        starts = [self._count * k // (children + 1) for k in range(children)]
        orders = [[*range(start, self._count), *range(start)] for start in starts]
        self._forked = Forked(self._work, orders)

    def _work(self, order: Sequence[int]) -> dict[int, list[R]]:
        done, taken, chunk = {}, self._taken, self._chunk
        for i in order:
            if not taken[i]:
                taken[i] = 1
                done[i] = self._fn(self._items[i * chunk:(i + 1) * chunk])
        return done

    def results(self) -> list[R]:
        """Every item's result, in order: this process takes what is left, then waits for the children."""
        done = self._work(range(self._count - 1, -1, -1))
        for part in self._forked.results():
            done.update(part)
        return [r for i in range(self._count) for r in done[i]]

    def close(self) -> None:
        self._forked.close()
        self._taken.close()

    def __enter__(self) -> "Shared":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _run_child(fn: Callable, chunk, write_end: int) -> None:
    code = 0
    try:
        try:
            payload = pickle.dumps((True, fn(chunk)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as e:  # noqa: BLE001 - everything is reported to the parent
            payload, code = pickle.dumps((False, f"{type(e).__name__}: {e}")), 1
        with os.fdopen(write_end, "wb") as out:
            out.write(payload)
    finally:
        os._exit(code)


def _collect(pid: int, read_end: int):
    with os.fdopen(read_end, "rb") as source:
        data = source.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        raise WorkerFailed(f"a worker process died (wait status {status}) before sending its results")
    ok, value = pickle.loads(data)
    if not ok:
        raise WorkerFailed(f"a worker process failed: {value}")
    return value


# --- threads, for work that releases the GIL (the ANN index, OpenSSL, the database engine) ---

@contextlib.contextmanager
def in_background(fn: Callable[..., R], *args, **kwargs) -> Iterator["Future[R]"]:
    """Run fn(*args, **kwargs) on another thread while the block runs; the block gets its
    Future. Pays off only when fn spends its time outside the GIL."""
    from concurrent.futures import ThreadPoolExecutor  # not loaded by the many commands that never need it
    with ThreadPoolExecutor(1) as pool:
        yield pool.submit(fn, *args, **kwargs)


def pipelined(fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
    """fn over each item on another thread, in order, so the caller works on one
    result while the next ones are computed."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as pool:
        futures = [pool.submit(fn, item) for item in items]
        for future in futures:
            yield future.result()
