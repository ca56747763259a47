"""Typed access to the dream tables: runs, cluster assignments, prune hints, and the
co-access counts recall keeps for the dream (schema/<dialect>/001 and 006)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    from .port import Repository


class CoAccessCounts:
    """`local_coaccess`: per memory, recalls that returned it with others and the product
    of their bonuses; never committed."""

    name = "local_coaccess"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def all(self) -> dict[str, tuple[int, float]]:
        return {r["memory_id"]: (int(r["retrievals"]), float(r["factor"])) for r in self.repo.select(self.name)}

    def of(self, ids: Sequence[str]) -> dict[str, tuple[int, float]]:
        return {r["memory_id"]: (int(r["retrievals"]), float(r["factor"]))
                for r in self.repo.select_in(self.name, "memory_id", list(ids))}

    def write(self, counts: Mapping[str, tuple[int, float]], *, at: str) -> None:
        rows = [{"memory_id": i, "retrievals": n, "factor": f, "last_access": at} for i, (n, f) in counts.items()]
        if rows:
            self.repo.upsert(self.name, rows, key=["memory_id"])

    def remove(self, ids: Sequence[str]) -> None:
        if ids:
            self.repo.delete(self.name, {"memory_id": list(ids)})


class DreamRunTable:
    """`dream_runs`: one row per dream cycle (its branch, status and report)."""

    name = "dream_runs"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def get(self, run_id: str, *, as_of: str | None = None) -> dict | None:
        rows = self.repo.select(self.name, {"id": run_id}, as_of=as_of)
        return _decoded(rows[0]) if rows else None

    def of_agent(self, agent_id: str, *, status: Sequence[str] | None = None, as_of: str | None = None) -> list[dict]:
        where: dict = {"agent_id": agent_id}
        if status:
            where["status"] = list(status)
        return [_decoded(r) for r in self.repo.select(self.name, where, order_by="started_at", as_of=as_of)]

    def write(self, row: Mapping) -> None:
        self.repo.upsert(self.name, [{**row, "stats": json.dumps(row.get("stats", {}), sort_keys=True)}], key=["id"])


def _decoded(row: dict) -> dict:
    return {**row, "stats": json.loads(row["stats"]) if isinstance(row["stats"], str) else row["stats"]}


class ClusterTable:
    """`dream_clusters`: which memories a run put together, and how in phase they are."""

    name = "dream_clusters"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def of_run(self, run_id: str, *, as_of: str | None = None) -> list[dict]:
        rows = self.repo.select(self.name, {"run_id": run_id}, order_by="cluster_id", as_of=as_of)
        return [{**r, "memory_ids": json.loads(r["memory_ids"])} for r in rows]

    def write(self, rows: Sequence[Mapping]) -> None:
        if rows:
            self.repo.upsert(self.name, [{**r, "memory_ids": json.dumps(list(r["memory_ids"]))} for r in rows],
                             key=["run_id", "cluster_id"])


class PruneHintTable:
    """`prune_hints`: memories a run found faded (advice for foreign ones, never a delete)."""

    name = "prune_hints"

    def __init__(self, repo: "Repository"):
        self.repo = repo

    def of_run(self, run_id: str, *, as_of: str | None = None) -> list[dict]:
        return self.repo.select(self.name, {"run_id": run_id}, order_by="memory_id", as_of=as_of)

    def write(self, rows: Sequence[Mapping]) -> None:
        if rows:
            self.repo.upsert(self.name, list(rows), key=["run_id", "memory_id"])


class DreamTables:
    """The dream's tables over one repository."""

    def __init__(self, repo: "Repository"):
        self.runs = DreamRunTable(repo)
        self.clusters = ClusterTable(repo)
        self.prune_hints = PruneHintTable(repo)
