"""Forked workers (collective.runtime.parallel): split cuts work into contiguous parts,
Forked runs a function over each in a child that sees the parent's objects, returns
the results in order, fails the call when a child raises or dies, and leaves no
process behind. Shared divides one list's work between children and the parent by how
fast each goes, with the same guarantees."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collective.runtime import parallel

PARENT = os.getpid()


def children() -> set[int]:
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        pids.update(int(p) for p in (task / "children").read_text().split())
    return pids


def in_child() -> bool:
    return os.getpid() != PARENT


needs_proc = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads child processes from /proc")


@given(st.lists(st.integers(), max_size=60), st.integers(1, 12))
def test_split_cuts_contiguous_near_equal_parts(items, parts):
    chunks = parallel.split(items, parts)
    assert [x for c in chunks for x in c] == items  # every item once, in order
    assert len(chunks) <= parts and all(chunks)  # never an empty part
    if chunks:
        step = -(-len(items) // parts)
        assert [len(c) for c in chunks[:-1]] == [step] * (len(chunks) - 1) and len(chunks[-1]) <= step


def test_forked_returns_each_chunk_in_order():
    chunks = parallel.split(list(range(101)), 4)
    assert [len(c) for c in chunks] == [26, 26, 26, 23]
    assert parallel.split([], 4) == []
    with parallel.Forked(lambda c: (os.getpid(), [x * x for x in c]), chunks) as forked:
        pids, results = zip(*forked.results())
    assert list(results) == [[x * x for x in c] for c in chunks]
    assert len(set(pids)) == 4 and PARENT not in pids  # each chunk in its own child


def test_children_use_the_parents_objects_without_pickling_them():
    held = {"lock": threading.Lock(), "offset": 7}  # a lock cannot be pickled, nor can a lambda
    with parallel.Forked(lambda c: [held["offset"] + x for x in c], [[1], [2], [3]]) as forked:
        assert list(forked.results()) == [[8], [9], [10]]


@needs_proc
def test_a_worker_that_raises_or_dies_fails_the_call_and_no_process_is_left():
    before = children()

    def raises(chunk):
        if chunk == [2]:
            raise ValueError(f"cannot judge {chunk}")
        return chunk

    with pytest.raises(parallel.WorkerFailed, match=r"ValueError: cannot judge \[2\]"):
        with parallel.Forked(raises, [[1], [2]]) as forked:
            list(forked.results())

    def dies(chunk):
        if in_child():
            os._exit(3)
        return chunk

    with pytest.raises(parallel.WorkerFailed, match="died"):
        with parallel.Forked(dies, [[1], [2]]) as forked:
            list(forked.results())

    def slow(chunk):
        threading.Event().wait(30)  # a slow child: it is stopped, not waited for
        return chunk

    started = time.monotonic()
    with pytest.raises(KeyError):
        with parallel.Forked(slow, [[2], [3]]):
            raise KeyError("the parent's own chunk failed meanwhile")
    assert time.monotonic() - started < 10
    assert children() == before


def squares(part):
    return [(x * x).to_bytes(4, "little") for x in part]


@pytest.mark.parametrize("children", [0, 1, 3])
def test_shared_work_gives_every_result_however_it_was_divided(children):
    items = list(range(1000))
    with parallel.Shared(squares, items, width=4, children=children, chunk=7) as shared:
        time.sleep(0.05)  # the children take what they can meanwhile
        assert shared.results() == squares(items)
    with parallel.Shared(squares, items, width=4, children=children, chunk=7) as shared:
        parts = list(shared.ready())
    assert sorted(start for start, _ in parts) == list(range(0, 1000, 7))  # each slice once
    assert all(part == squares(items[start:start + 7]) for start, part in parts)
    with parallel.Shared(squares, [], width=4, children=children, chunk=7) as shared:
        assert shared.results() == []


def test_shared_work_is_divided_between_the_children_and_this_process():
    def slice_by(part):
        time.sleep(0.002)
        return [os.getpid().to_bytes(4, "little")] * len(part)

    parent = PARENT.to_bytes(4, "little")
    with parallel.Shared(slice_by, list(range(400)), width=4, children=1, chunk=4) as shared:
        by = shared.results()  # this process joins at once
    assert len(by) == 400 and by[-1] == parent and by[0] != parent

    with parallel.Shared(slice_by, list(range(40)), width=4, children=1, chunk=4) as shared:
        time.sleep(1)  # a child that had the time did it all
        assert parent not in shared.results()


@needs_proc
def test_a_shared_worker_that_fails_fails_the_call_and_no_process_is_left():
    before = children()

    def fails_in_child(part):
        if in_child():
            raise ValueError("cannot sign")
        threading.Event().wait(0.5)  # let the child take a slice
        return squares(part)

    with pytest.raises(parallel.WorkerFailed, match="ValueError: cannot sign"):
        with parallel.Shared(fails_in_child, list(range(10)), width=4, children=1, chunk=1) as shared:
            shared.results()

    def dies_in_child(part):
        if in_child():
            os._exit(3)
        threading.Event().wait(0.5)
        return squares(part)

    with pytest.raises(parallel.WorkerFailed, match="died"):
        with parallel.Shared(dies_in_child, list(range(10)), width=4, children=1, chunk=1) as shared:
            shared.results()
    with pytest.raises(ValueError, match="not 4 bytes"):
        with parallel.Shared(lambda part: [b"long"] * len(part) + [b"!"], [1], width=4, children=0,
                             chunk=1) as shared:
            shared.results()
    with pytest.raises(KeyError):
        with parallel.Shared(lambda part: threading.Event().wait(30), list(range(10)), width=4, children=2,
                             chunk=1):
            raise KeyError("the block failed while the children worked")
    assert children() == before
