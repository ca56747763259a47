"""Hallucinate: synthesised memories. A cluster with enough agreeing members yields one
memory whose vector is the normalised sum of its parents', with `parents` (lineage),
`hallucinated_from` links, a reduced amplitude and a text made from the parents'
summaries; a `Synthesiser` (e.g. an LLM) may write the text instead."""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from typing import Callable, Sequence

import numpy as np

from collective.core import wave
from collective.model import Memory, content_hash, summarise
from collective.model.enums import LinkType

Synthesiser = Callable[[Sequence[str]], str]  # the parents' texts -> the synthesis's text


def from_summaries(texts: Sequence[str]) -> str:
    """The built-in synthesiser: the parents' summaries, joined."""
    return "Taken together: " + "; ".join(summarise(t).rstrip(".") for t in texts) + "."


def choose(ids: list[str], amplitude: np.ndarray, parent_ok: np.ndarray, agreeing: np.ndarray,
           clashing: np.ndarray, *, least: int, most: int) -> list[str]:
    """The strongest members that agree with one another: greedily, strongest first, each
    joined by agreement to one already taken and contradicting none; [] when fewer than
    `least` such members are found."""
    agree = {(int(a), int(b)) for a, b in agreeing} | {(int(b), int(a)) for a, b in agreeing}
    clash = {(int(a), int(b)) for a, b in clashing} | {(int(b), int(a)) for a, b in clashing}
    linked = {a for a, _ in agree}
    able = [k for k in np.flatnonzero(parent_ok).tolist() if k in linked]
    taken: list[int] = []
    for k in sorted(able, key=lambda k: (-amplitude[k], ids[k])):
        if len(taken) == most:
            break
        if any((k, t) in clash for t in taken) or (taken and not any((k, t) in agree for t in taken)):
            continue
        taken.append(k)
    return sorted(ids[k] for k in taken) if len(taken) >= least else []


def synthesis_id(parents: Sequence[str]) -> str:
    """The same parents always give the same id, so a synthesis is made once."""
    digest = hashlib.sha256(("synthesis:" + ",".join(sorted(parents))).encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=5))


def synthesise(parents: Sequence[dict], vectors: np.ndarray, amplitudes: np.ndarray, phases: np.ndarray, *,
               text: Synthesiser, share: float, agent_id: str, model_version: str, at: str) -> Memory:
    """The synthesised memory of some parent rows (their current vectors, amplitudes, phases)."""
    total = vectors.sum(axis=0)
    content = text([p["content"] for p in parents]).strip()
    category = Counter(p["category"] for p in parents).most_common(1)[0][0]
    return Memory(id=synthesis_id([p["id"] for p in parents]), content=content, summary=summarise(content),
                  vector=(total / np.linalg.norm(total)).astype(np.float32), dim=int(vectors.shape[1]),
                  model_version=model_version, content_hash=content_hash(content),
                  amplitude=float(min(1.0, share * float(np.mean(amplitudes)))),
                  phase=wave.circular_mean(list(map(float, phases)), list(map(float, amplitudes))),
                  category=category, origin_agent=agent_id, created_at=at, updated_at=at, tags=["dream"],
                  hallucinated=True, parents=sorted(p["id"] for p in parents), last_consolidated_at=at)


def lineage_links(memory: Memory, *, at: str) -> list[dict]:
    return [{"source_id": memory.id, "target_id": parent, "link_type": LinkType.HALLUCINATED_FROM.value,
             "weight": 1.0, "created_by": memory.origin_agent, "created_at": at} for parent in memory.parents]
