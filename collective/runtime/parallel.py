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
import select
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

    @property
    def pending(self) -> bool:
        """Whether a child is yet to be collected."""
        return bool(self._children)

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
    divides by how fast each went, however busy the machine is. fn gives `width` bytes an
    item; children leave them in memory shared with this process and say which slice is done
    through a pipe, so each slice is ready here as soon as it is done and nothing is pickled.
    Two that look at one slice at the same moment both compute it: fn must give the same
    result for the same slice."""

    def __init__(self, fn: Callable[[Sequence[T]], list[bytes]], items: Sequence[T], *, width: int,
                 children: int, chunk: int):
        self._fn, self._items, self._chunk, self._width = fn, items, chunk, width
        self._count = -(-len(items) // chunk)
        children = max(0, min(children, self._count - 1))
        # anonymous maps are shared with the children: a byte a slice (taken), `width` an item (done)
        self._taken = mmap.mmap(-1, max(1, self._count))
        self._done = mmap.mmap(-1, max(1, len(items) * width))
        self._said, self._told = os.pipe()  # children write each slice's number once it is done
        self._poll: select.poll | None = None
        starts = [self._count * k // (children + 1) for k in range(children)]
        try:
            self._forked = Forked(self._child, [[*range(start, self._count), *range(start)] for start in starts])
        except BaseException:
            os.close(self._said)
            raise
        finally:
            os.close(self._told)  # theirs now: the pipe ends when the last child does
        self._open = True

    def _take(self, i: int) -> bool:
        if self._taken[i]:
            return False
        self._taken[i] = 1
        return True

    def _part(self, i: int) -> list[bytes]:
        part = self._fn(self._items[i * self._chunk:(i + 1) * self._chunk])
        if any(len(r) != self._width for r in part):
            raise ValueError(f"a result is not {self._width} bytes long")
        return part

    def _child(self, order: Sequence[int]) -> None:
        width = self._width
        for i in order:
            if self._take(i):
                at = i * self._chunk * width
                part = b"".join(self._part(i))
                self._done[at:at + len(part)] = part
                os.write(self._told, i.to_bytes(4, "little"))  # after the results: a pipe orders the two

    def ready(self) -> Iterator[tuple[int, list[bytes]]]:
        """(first item's index, results) of each slice as it is done: the children's as they say
        so, and between them, those this process takes itself (from the end)."""
        pending, mine = set(range(self._count)), self._count - 1
        while pending:
            theirs = self._said_done(wait=False)
            while mine >= 0 and not theirs:
                if self._take(mine):
                    pending.discard(mine)
                    yield mine * self._chunk, self._part(mine)
                mine -= 1
                theirs = self._said_done(wait=False)
            if not theirs and pending:  # what is left, children are doing
                theirs = self._said_done(wait=True)
            for i in theirs:
                if i in pending:
                    pending.discard(i)
                    start, stop = i * self._chunk, min(len(self._items), (i + 1) * self._chunk)
                    done = self._done[start * self._width:stop * self._width]
                    yield start, [done[k:k + self._width] for k in range(0, len(done), self._width)]
        # every slice is in: leaving the block reaps the children (they end once they find none left)

    def _said_done(self, *, wait: bool) -> list[int]:
        if not self._forked.pending:
            if wait:
                raise WorkerFailed("no worker process is left to finish the work")
            return []
        if self._poll is None:  # poll, not select: this process may hold more than 1024 files
            self._poll = select.poll()
            self._poll.register(self._said, select.POLLIN)
        if not self._poll.poll(None if wait else 0):
            return []
        said = os.read(self._said, 4096)  # whole numbers: each was written at once, 4096 holds 1024
        if not said:  # every child has ended, and a slice one took is not done: its error, if any
            list(self._forked.results())
            raise WorkerFailed("a worker process ended before finishing its part")
        return [int.from_bytes(said[k:k + 4], "little") for k in range(0, len(said), 4)]

    def results(self) -> list[bytes]:
        """Every item's result, in order."""
        parts = dict(self.ready())
        return [r for start in sorted(parts) for r in parts[start]]

    def close(self) -> None:
        if self._open:
            self._open = False
            self._forked.close()
            os.close(self._said)
            self._taken.close()
            self._done.close()

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
