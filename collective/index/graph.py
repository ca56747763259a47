"""The HNSW graph of the ANN index, by usearch: making it, loading it, asking it.

The graph only finds neighbours. It keeps the unit vectors in bfloat16: the library's float32
kernels took ten times as long a distance here (384 dims), and bfloat16 halves the memory. The
cosines a search returns come from the float32 vectors the index keeps beside it (hnsw.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
from pathlib import Path

import numpy as np

EF_SEARCH = 100  # how deep one search looks (at least k deep)
M = 16  # links per node and layer (twice that on the bottom layer)
# How deep an insertion looks for its neighbours. Measured on 100k clustered 384-dim vectors,
# 2 busy cores: 100 builds in 24 s and a search at ef 100 finds 0.996 of the 10 nearest;
# 128 took 26 s for 0.999. Recall widens until exact anyway.
EF_CONSTRUCTION = 100
# The library's own threads for one add or search: few, as the machine runs other work too
THREADS = max(1, min(4, os.cpu_count() or 1))


def new(dim: int, depth: int):
    """An empty graph of unit vectors (their inner product is their cosine); it grows as rows come.
    `depth` (ef): how deep a search looks."""
    return _index_class()(ndim=dim, metric="ip", dtype="bf16", connectivity=M, expansion_add=EF_CONSTRUCTION,
                 expansion_search=depth)


@functools.cache
def _index_class():
    """usearch's Index, imported when first needed (`cmem store` never needs it).

    usearch's Linux wheel carries its own static copy of the C++ runtime. Loaded before the
    system's libstdc++ is in the global scope, it makes a library loaded later crash on import
    (onnxruntime, the embedder's): so the system's goes first."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):  # none there: nothing to put first
            ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
    from usearch.index import Index

    return Index


def load(path: Path, dim: int, depth: int):
    """The graph saved at `path` (its dimensions and links are the file's; the depth is not saved)."""
    graph = new(dim, depth)
    graph.load(path)
    graph.expansion_search = depth
    return graph


def nearest(graph, vectors: np.ndarray, queries: np.ndarray, k: int,
            depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each unit query, the k nearest labels the graph finds, best first, with their cosines
    from the unit float32 `vectors`; and whether it found fewer than k (the rest of that row
    is filler). The graph looks at least as deep as it returns."""
    # Up to twice k, within the depth (no extra walking): bfloat16 cosines misorder close
    # neighbours, the float32 ones put them right.
    fetch = min(graph.size, max(k, min(2 * k, depth)))
    graph.expansion_search = depth
    labels, counts = _found(graph.search(queries, fetch, threads=THREADS), fetch)
    labels, sims = _by_cosine(vectors, labels, counts, queries, k)
    return labels, sims, counts < k


def _found(matches, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A search's (labels, counts), one row of k labels per query; a row holds no label past
    its count. The library hands a single query's matches alone, unpadded."""
    if hasattr(matches, "counts"):
        return matches.keys.astype(np.int64), matches.counts
    return np.pad(matches.keys.astype(np.int64), (0, k - len(matches.keys)))[None], np.array([len(matches.keys)])


def _by_cosine(vectors: np.ndarray, labels: np.ndarray, counts: np.ndarray, queries: np.ndarray,
               k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k of each query's first `counts` labels with the highest cosine to it, best first,
    with those cosines."""
    past = np.arange(labels.shape[1]) >= counts[:, None]  # no match there
    labels = np.where(past, 0, labels)
    sims = np.einsum("qkd,qd->qk", vectors[labels], queries)  # not BLAS: its threads cost ms at k = 1600
    sims[past] = -np.inf
    top = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(labels, top, axis=1), np.take_along_axis(sims, top, axis=1)
