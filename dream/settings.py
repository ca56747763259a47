"""How dreams are tuned: the [dream] section of cmem.toml, with defaults."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from collective.config import checked_setting, config_table
from collective.core import scoring
from collective.errors import BadInput


@dataclass(frozen=True)
class DreamSettings:
    neighbours: int = 8               # ANN neighbours each selected memory is compared with
    cluster_max: int = 64             # a cluster never grows past this: a giant component is split
    cross_cluster_every: int = 5      # wire across clusters on every Nth cycle
    coaccess_cap: float = scoring.COACCESS_CAP
    coupling: float = 1.0             # Kuramoto coupling K over agreeing (constructive) edges
    sync_steps: int = 10
    sync_dt: float = 0.1
    prune_below: float = 0.1          # a memory weaker than this (amplitude * trust * recency) is pruned
    fade: float = 0.5                 # a pruned memory keeps this share of its amplitude
    layer_days: tuple[float, ...] = (1.0, 7.0, 30.0)  # transfer: layer = how many of these its age passed
    hallucinate_min: int = 3          # agreeing members a cluster needs to synthesise from
    hallucinate_parents: int = 3
    hallucinate_max: int = 20         # synthesised memories per run at most
    hallucinated_amplitude: float = 0.5  # share of the parents' mean amplitude a synthesis starts with
    import_trust: float = 0.5         # a peer's artifacts are imported when trusted at least this much
    import_amplitude: float = 0.5     # a peer's synthesis arrives at this share of its amplitude

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> "DreamSettings":
        # a tuple's kind is that of its items: layer_days = [1, 7, 30]
        kinds = {f.name: (float,) if isinstance(f.default, tuple) else type(f.default) for f in fields(cls)}
        values = {}
        for key, value in config_table(raw, "dream").items():
            if key not in kinds:
                raise BadInput("cmem.toml", f"unknown dream setting {key!r}")
            values[key] = checked_setting(f"[dream] {key}", value, kinds[key])
        return cls(**values)
