"""Cluster: the selected memories grouped along detect's pairs (bounded in size), and
the work done inside each cluster alone: synchronise, wire, and the choice of what to
synthesise. `consolidate` is pure, so clusters can be worked on in any process."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from collective.core import wave

from ..settings import DreamSettings
from . import hallucinate, synchronise, wire


@dataclass
class ClusterTask:
    cluster_id: int
    members: np.ndarray                      # positions in the field
    ids: list[str]
    phase: np.ndarray
    amplitude: np.ndarray
    parent_ok: np.ndarray                    # may be synthesised from
    pairs: list[tuple[int, int, str, float]]  # local indices, relation, similarity
    settings: DreamSettings


@dataclass
class ClusterResult:
    cluster_id: int
    members: np.ndarray
    phase: np.ndarray
    order_before: float
    order_after: float
    links: list[wire.Link]
    parents: list[str]


def consolidate(task: ClusterTask) -> ClusterResult:
    s = task.settings
    agreeing = [(i, j, sim) for i, j, relation, sim in task.pairs if relation == wave.CONSTRUCTIVE]
    edges = np.array([(i, j) for i, j, _ in agreeing], dtype=np.int64).reshape(-1, 2)
    weights = np.array([sim for _, _, sim in agreeing], dtype=np.float64)
    phase = synchronise.synchronise(task.phase, edges, weights, coupling=s.coupling, steps=s.sync_steps,
                                    dt=s.sync_dt)
    links = wire.within([(task.ids[i], task.ids[j], relation, sim) for i, j, relation, sim in task.pairs])
    clashing = np.array([(i, j) for i, j, relation, _ in task.pairs if relation == wave.DESTRUCTIVE],
                        dtype=np.int64).reshape(-1, 2)
    parents = hallucinate.choose(task.ids, task.amplitude, task.parent_ok, edges, clashing,
                                 least=s.hallucinate_min, most=s.hallucinate_parents)
    return ClusterResult(task.cluster_id, task.members, phase, synchronise.order(task.phase),
                         synchronise.order(phase), links, parents)


def tasks(groups: list[list[int]], ids: list[str], phase: np.ndarray, amplitude: np.ndarray,
          parent_ok: np.ndarray, pairs: list[tuple[int, int, str, float]],
          settings: DreamSettings) -> list[ClusterTask]:
    """One task per cluster of two or more, with its own pairs (global positions i < j,
    relation, similarity)."""
    cluster_of = np.empty(len(ids), dtype=np.int64)
    local = np.empty(len(ids), dtype=np.int64)
    for c, members in enumerate(groups):
        cluster_of[members] = c
        local[members] = np.arange(len(members))
    inside: list[list] = [[] for _ in groups]
    for i, j, relation, sim in pairs:
        if cluster_of[i] == cluster_of[j]:
            inside[cluster_of[i]].append((int(local[i]), int(local[j]), relation, sim))
    out = []
    for c, members in enumerate(groups):
        if len(members) < 2:
            continue  # alone: nothing to couple, link or synthesise
        at = np.asarray(members, dtype=np.int64)
        out.append(ClusterTask(c, at, [ids[k] for k in members], phase[at], amplitude[at], parent_ok[at],
                               inside[c], settings))
    return out
