"""Wire: links between memories that detect related. Inside a cluster, agreeing and
partly agreeing neighbours get a `wire` link and contradicting ones `disputes` links
both ways; across clusters, `cross_cluster` links (only every Nth cycle)."""

from __future__ import annotations

from typing import Mapping, Sequence

from collective.core import wave
from collective.model.enums import LinkType

Link = tuple[str, str, str, float]  # source, target, link type, weight


def within(pairs: Sequence[tuple[str, str, str, float]]) -> list[Link]:
    """Links for (a, b, relation, similarity) pairs of one cluster."""
    out: list[Link] = []
    for a, b, relation, similarity in pairs:
        if relation == wave.DESTRUCTIVE:
            out += [(a, b, LinkType.DISPUTES.value, similarity), (b, a, LinkType.DISPUTES.value, similarity)]
        else:
            out.append((a, b, LinkType.WIRE.value, similarity))
    return out


def across(pairs: Sequence[tuple[str, str, str, float]], cluster_of: Mapping[str, int]) -> list[Link]:
    """`cross_cluster` links for agreeing pairs whose ends lie in different clusters."""
    return [(a, b, LinkType.CROSS_CLUSTER.value, similarity) for a, b, relation, similarity in pairs
            if relation != wave.DESTRUCTIVE and cluster_of[a] != cluster_of[b]]


def rows(links: Sequence[Link], *, by: str, at: str) -> list[dict]:
    return [{"source_id": s, "target_id": t, "link_type": kind, "weight": round(float(w), 6), "created_by": by,
             "created_at": at} for s, t, kind, w in links]
