"""The data behind the pictures (a part of the facade, kept apart for its size): trust over
time per peer, the field's stability dream by dream, and a dream's clusters on a flat map.
collective/plots.py draws them; the CLI's --plot and the review page show them."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import NotFound
from .model import parse_time

if TYPE_CHECKING:
    from .store.port import Repository
    from .store.tables import Tables


class PictureVerbs:
    """Mixed into Agent (whose peers and trust_ledger it reads)."""

    agent_id: str
    repo: Repository
    tables: Tables

    def trust_history(self, peer: str | None = None) -> dict[str, list[tuple[datetime, float]]]:
        """Each peer's trust here over time (or only `peer`'s): where it started, then its
        score after each change, from the trust ledger."""
        met = {p["agent"]: p for p in self.peers()}
        history: dict[str, list[tuple[datetime, float]]] = {}
        for name in [peer] if peer is not None else sorted(met):
            ledger = self.trust_ledger(name)
            events = ledger["events"]
            points = [(parse_time(e["created_at"]), float(e["score_after"])) for e in events]
            if points:  # where it stood before the first change
                points.insert(0, (points[0][0], float(events[0]["score_after"]) - float(events[0]["delta"])))
            elif ledger["trust"] is not None and met.get(name, {}).get("last_sync"):
                points = [(parse_time(met[name]["last_sync"]), float(ledger["trust"]))]  # met, never moved
            history[name] = points
        return history

    def stability_history(self) -> list[tuple[datetime, float, float]]:
        """This agent's dreams, oldest first: when each ran, and the field's stability before
        and after it."""
        from .store.dream_tables import DreamRunTable
        runs = []
        for row in DreamRunTable(self.repo).of_agent(self.agent_id):
            stability = row["stats"].get("stability") or {}
            if "before" in stability and "after" in stability:
                at = parse_time(row.get("finished_at") or row["started_at"])
                runs.append((at, float(stability["before"]), float(stability["after"])))
        return sorted(runs)

    def dream_map(self, run: str | None = None) -> dict[str, Any]:
        """A dream's clusters (this agent's last, unless `run`) on a flat map: {"run",
        "points" (n x 2), "clusters" (each point's), "orders" (cluster -> order)}."""
        from .store.dream_tables import ClusterTable, DreamRunTable
        runs = DreamRunTable(self.repo).of_agent(self.agent_id)
        if run is None and not runs:
            raise NotFound("run", "no dream yet: run `cmem dream`")
        run = run or sorted(runs, key=lambda r: r["started_at"])[-1]["id"]
        rows = ClusterTable(self.repo).of_run(run)
        if not rows and run not in {r["id"] for r in runs}:
            raise NotFound("run", f"no dream run {run!r} of {self.agent_id}")
        members = [(int(r["cluster_id"]), m) for r in rows for m in r["memory_ids"]]
        held = self.tables.memories.by_id([m for _, m in members])
        kept = [(c, m) for c, m in members if m in held]
        from .plots import projected
        points = projected(np.array([held[m].vector for _, m in kept])) if kept else np.zeros((0, 2))
        return {"run": run, "points": points, "clusters": [c for c, _ in kept],
                "orders": {int(r["cluster_id"]): float(r["order_param"] or 0) for r in rows}}
