"""Partitions: clusters from the ANN graph, and the per-cluster stages run on them in
parallel with joblib. The result never depends on the number of jobs: clusters are
built in a fixed order, each is worked on alone, and results come back in order."""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

import numpy as np

T = TypeVar("T")
PARALLEL_TASKS = 1000  # below this many clusters, starting workers costs more than it saves
R = TypeVar("R")


def clusters(n: int, edges: Sequence[tuple[int, int, float]], *, max_size: int) -> list[list[int]]:
    """Groups of the n nodes joined by edges (i, j, weight), strongest edges first; two groups
    are joined only while the result stays within max_size, so a giant component is split
    along its weakest edges. Each node is in exactly one group; groups ordered by first member."""
    parent = list(range(n))
    size = [1] * n

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, _ in sorted(edges, key=lambda e: (-e[2], e[0], e[1])):
        a, b = root(i), root(j)
        if a != b and size[a] + size[b] <= max_size:
            if a > b:
                a, b = b, a
            parent[b] = a
            size[a] += size[b]
    roots = np.array([root(x) for x in range(n)], dtype=np.int64)
    order = np.argsort(roots, kind="stable")
    groups: dict[int, list[int]] = {}
    for node in order.tolist():
        groups.setdefault(int(roots[node]), []).append(node)
    return sorted(groups.values(), key=lambda g: g[0])


def run(fn: Callable[[T], R], tasks: Sequence[T], *, jobs: int) -> list[R]:
    """fn over tasks, in order; jobs > 1 runs batches of tasks in joblib (loky) workers
    (when there are PARALLEL_TASKS or more: the results are the same either way)."""
    if jobs <= 1 or len(tasks) < PARALLEL_TASKS:
        return [fn(t) for t in tasks]
    from joblib import Parallel, delayed

    batches = [tasks[k::jobs * 4] for k in range(jobs * 4)]  # a few batches per worker: overhead per call
    done = Parallel(n_jobs=jobs, backend="loky")(delayed(_each)(fn, b) for b in batches if b)
    out: list = [None] * len(tasks)
    for k, results in enumerate(done):
        out[k::jobs * 4] = results
    return out


def _each(fn: Callable[[T], R], batch: Sequence[T]) -> list[R]:
    return [fn(t) for t in batch]
