"""How dreams are tuned: the [dream] table of cmem.toml, with defaults (read by
collective.config's one loader: Home.section(DreamSettings))."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from collective.config import setting
from collective.core import scoring


@dataclass(frozen=True)
class DreamSettings:
    TABLE: ClassVar[str] = "dream"

    neighbours: int = setting(8, "ANN neighbours each selected memory is compared with")
    cluster_max: int = setting(64, "a cluster never grows past this: a giant component is split")
    cross_cluster_every: int = setting(5, "wire across clusters on every Nth cycle")
    coaccess_cap: float = setting(scoring.COACCESS_CAP, "co-access raises an amplitude by at most this factor "
                                  "per dream")
    coupling: float = setting(1.0, "Kuramoto coupling K over agreeing (constructive) edges")
    sync_steps: int = setting(10, "Kuramoto steps per cluster")
    sync_dt: float = setting(0.1, "the time step of those Kuramoto steps")
    prune_below: float = setting(0.1, "amplitude x recency under which a memory is pruned (faded, never "
                                 "deleted); trust and open disputes do not count")
    fade: float = setting(0.5, "a pruned memory keeps this share of its amplitude")
    layer_days: tuple[float, ...] = setting((1.0, 7.0, 30.0), "ages in days: a memory's layer is how many of "
                                            "these its age passed")
    hallucinate_min: int = setting(3, "agreeing members a cluster needs to synthesise from")
    hallucinate_parents: int = setting(3, "the most parents a synthesis is written from")
    hallucinate_max: int = setting(20, "synthesised memories per run at most")
    hallucinated_amplitude: float = setting(0.5, "share of the parents' mean amplitude a synthesis starts with")
    import_trust: float = setting(0.5, "a peer's dream artifacts are imported when trusted at least this much")
    import_amplitude: float = setting(0.5, "a peer's synthesis arrives at this share of its amplitude")
