"""Candidates: which local memories a new one might agree or disagree with.

The ANN index proposes neighbours; each is read back and its exact cosine
taken from the stored vectors (the index's is float32 and approximate).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..index import VectorIndex
from ..model import Memory
from ..runtime import parallel
from ..store.tables import MemoryTable

CANDIDATES_PER_MEMORY = 8
# ANN search depth (ef) for a pull's candidate search (k = CANDIDATES_PER_MEMORY). Measured on
# 10k clustered 384-d queries over 100k (scripts/bench_merge.py), with hnswlib: ef 100 -> 48 halved
# the search and still found 99.9% of the exact pairs above the floor. usearch at 48 finds as many as
# hnswlib did there (0.998 of the exact pairs, bench_merge's pair_recall_vs_exact).
CANDIDATE_EF = 48
# New memories per candidate search: parts small enough to overlap searching with reading rows.
SEARCH_PART = 2000

Candidates = dict[str, list[tuple[Memory, float]]]


def find_candidates(index: VectorIndex, memories: MemoryTable, fresh: Sequence[Memory],
                    floor: float) -> Candidates:
    """Local neighbours of each new memory at or above the floor, by the new memory's id.
    The caller passes only memories of the index's model and dimension."""
    if not fresh:
        return {}
    vectors = np.stack([m.vector for m in fresh])
    parts = parallel.split(range(len(fresh)), max(1, len(fresh) // SEARCH_PART))
    rows: dict[str, Memory] = {}
    out: Candidates = {}

    def search(part: range) -> list[list[tuple[str, float]]]:
        return index.search_many(vectors[part.start:part.stop], CANDIDATES_PER_MEMORY, ef=CANDIDATE_EF)

    # the ANN index releases the GIL: the next part is searched while this thread reads the rows the last one found
    for part, found in zip(parts, parallel.pipelined(search, parts)):
        wanted = sorted({mid for hits in found for mid, s in hits if s >= floor and mid not in rows})
        rows.update(memories.by_id(wanted))
        for memory, hits in zip(fresh[part.start:part.stop], found):
            chosen = [rows[mid] for mid, s in hits if s >= floor and mid in rows]
            if chosen:
                sims = np.stack([c.vector for c in chosen]) @ memory.vector
                out[memory.id] = list(zip(chosen, sims.tolist()))
    return out


def judged_candidates(remote: Memory, candidates: Mapping[str, Sequence[tuple[Memory, float]]],
                      floor: float) -> list[tuple[Memory, float]]:
    """The local candidates the plan asks the comparator about for one incoming memory."""
    return [(c, s) for c, s in candidates.get(remote.id, ()) if s >= floor and c.id != remote.id]
