"""The stages of one run over a loaded field, in memory: what a dream decides, before
the cycle writes it on the dream branch. Clusters are worked on in parallel."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field as dataclass_field
from typing import Callable, Iterator, Mapping

import numpy as np

from collective.core import wave
from collective.model import Memory
from collective.runtime.gc_pause import gc_paused
from collective.runtime.progress import Progress

from . import partition
from .field import Field
from .settings import DreamSettings
from .stages import cluster, detect, hallucinate, prune, strengthen, transfer, wire


@dataclass
class Outcome:
    field: Field
    pairs: list[detect.DetectedPair] = dataclass_field(default_factory=list)
    folded: dict[str, tuple[int, float]] = dataclass_field(default_factory=dict)
    clusters: list[cluster.ClusterResult] = dataclass_field(default_factory=list)
    pruned: prune.Pruned = dataclass_field(default_factory=prune.Pruned)
    transferred: int = 0
    links: list[wire.Link] = dataclass_field(default_factory=list)
    cross_links: int = 0
    synthesised: list[Memory] = dataclass_field(default_factory=list)
    seconds: dict[str, float] = dataclass_field(default_factory=dict)

    @contextmanager
    def timed(self, stage: str, progress: Progress | None) -> Iterator[None]:
        if progress:
            progress(stage, 0, 1)
        clock = time.perf_counter()
        yield
        self.seconds[stage] = round(self.seconds.get(stage, 0.0) + time.perf_counter() - clock, 4)
        if progress:
            progress(stage, 1, 1)


@dataclass
class Context:
    """What the stages need besides the field: the index, the comparator, the repository
    (for the judge's kept analyses), co-access counts, and the lineage reader."""

    index: object
    comparator: object
    repo: object
    coaccess: Mapping[str, tuple[int, float]]
    parents_of_live: Callable[[], set[str]]
    agent_id: str
    model_version: str
    amplitude_cap: float
    fade_threshold: float
    cross_cluster: bool
    changed: frozenset[str] | None  # an incremental run looks again only at pairs touching these
    synthesiser: hallucinate.Synthesiser
    known: Callable[[list[Memory]], set[str]]  # ids of syntheses that exist already


def run(field: Field, ctx: Context, settings: DreamSettings, *, jobs: int, now: float, at: str,
        progress: Progress | None = None) -> Outcome:
    with gc_paused():  # 10^5 rows, memories and verdicts, none cyclic: the collector would walk them again and again
        return _stages(field, ctx, settings, jobs=jobs, now=now, at=at, progress=progress)


def _stages(field: Field, ctx: Context, settings: DreamSettings, *, jobs: int, now: float, at: str,
            progress: Progress | None) -> Outcome:
    out = Outcome(field)
    with out.timed("detect", progress):
        touching = None if ctx.changed is None else np.array([i in ctx.changed for i in field.ids], dtype=bool)
        near = detect.neighbour_pairs(field, ctx.index, neighbours=settings.neighbours,
                                      floor=ctx.comparator.candidate_floor, touching=touching)
        out.pairs = detect.classify(field, near, ctx.comparator, ctx.repo, on_every_core=jobs > 1)
    with out.timed("strengthen", progress):
        out.folded = strengthen.strengthen(field, ctx.coaccess, cap=settings.coaccess_cap, ceiling=ctx.amplitude_cap)
    with out.timed("cluster", progress):
        indexed = [(field.position[p.a], field.position[p.b], p.relation, p.similarity) for p in out.pairs]
        groups = partition.clusters(len(field), [(i, j, s) for i, j, _, s in indexed], max_size=settings.cluster_max)
        parent_ok = np.array([not r["hallucinated"] and not r["disputed"] for r in field.rows], dtype=bool)
        tasks = cluster.tasks(groups, field.ids, field.phase, field.amplitude, parent_ok, indexed, settings)
    with out.timed("synchronise", progress):  # with wire and the choice of parents, per cluster
        out.clusters = partition.run(cluster.consolidate, tasks, jobs=jobs)
        for result in out.clusters:
            field.phase[result.members] = result.phase
    with out.timed("prune", progress):
        chosen = prune.candidates(field, below=settings.prune_below, faded_below=ctx.fade_threshold)
        out.pruned = prune.prune(field, chosen, ctx.parents_of_live() if len(chosen) else set(), fade=settings.fade)
    with out.timed("transfer", progress):
        out.transferred = transfer.transfer(field, layer_days=settings.layer_days, now=now)
    with out.timed("wire", progress):
        out.links = [link for result in out.clusters for link in result.links]
        if ctx.cross_cluster:
            cluster_of = {field.rows[k]["id"]: c for c, members in enumerate(groups) for k in members}
            crossing = wire.across([(p.a, p.b, p.relation, p.similarity) for p in out.pairs], cluster_of)
            out.links += crossing
            out.cross_links = len(crossing)
    with out.timed("hallucinate", progress):
        out.synthesised = _synthesise(field, out.clusters, ctx, settings, at)
    return out


def _synthesise(field: Field, results: list[cluster.ClusterResult], ctx: Context, settings: DreamSettings,
                at: str) -> list[Memory]:
    """One synthesis for each of the strongest clusters that chose parents, unless made before."""
    chosen = [r for r in results if r.parents]
    chosen.sort(key=lambda r: (-float(np.mean([field.amplitude[field.position[p]] for p in r.parents])),
                               r.cluster_id))
    made = []
    for result in chosen[: settings.hallucinate_max]:
        at_ = [field.position[p] for p in result.parents]
        made.append(hallucinate.synthesise([field.rows[k] for k in at_], field.vectors[at_], field.amplitude[at_],
                                           field.phase[at_], text=ctx.synthesiser,
                                           share=settings.hallucinated_amplitude, agent_id=ctx.agent_id,
                                           model_version=ctx.model_version, at=at))
    existing = ctx.known(made) if made else set()
    return [m for m in made if m.id not in existing]


def relation_counts(pairs: list[detect.DetectedPair]) -> dict[str, int]:
    counts = {str(r): 0 for r in (wave.CONSTRUCTIVE, wave.PARTIAL, wave.DESTRUCTIVE)}
    for p in pairs:
        counts[str(p.relation)] += 1
    return counts
