"""The collective merge: what a peer learned, folded in by wave interference.

`plan()` is pure: given the peer's new memories, the local candidates of
each and the receiver's trust, it decides every pair (constructive, partial,
destructive, independent) and returns the rows to write. `apply()` writes a
plan through the repository in the caller's transaction.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterator, Mapping, Protocol, Sequence

from ..core import phase as phase_mod
from ..judge.stance import estimate as estimate_stance
from ..core import trust, wave
from ..config import Settings
from ..model import Memory, iso, parse_time, uuid7
from ..quarantine import case_id, effects, escalate

CANDIDATES_PER_MEMORY = 8


@dataclass(frozen=True)
class PairVerdict:
    relation: str
    dphi: float
    similarity: float
    confidence: float = 1.0
    reason: str = ""


class Comparator(Protocol):
    """Decides how two memories relate. `candidate_floor`: lowest cosine worth asking about."""

    candidate_floor: float

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict: ...


class PhaseComparator:
    """DESIGN's literal rule: similarity gate, then the stored phase difference."""

    fork_safe = True  # pure: a pull may run it in forked workers

    def __init__(self, threshold: float = wave.SIMILARITY_THRESHOLD):
        self.candidate_floor = threshold
        self.threshold = threshold

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict:
        dphi = wave.phase_difference(local.phase, remote.phase)
        relation = wave.classify(similarity, dphi, threshold=self.threshold)
        return PairVerdict(relation, dphi, similarity, reason=f"cosine {similarity:.2f}, phase difference {dphi:.2f}")


class JudgeComparator:
    """A pairwise judge reads the two texts; explicit writer stances turn its verdict.

    The judge sees only text and cosine. A writer who stored "X" with stance
    deny asserts "not X", so the pair's phase difference shifts by how far each
    explicit stance departs from what the text alone says.
    """

    def __init__(self, judge, *, candidate_floor: float | None = None):
        self.judge = judge
        self.candidate_floor = candidate_floor if candidate_floor is not None else getattr(judge, "candidate_floor", 0.4)

    @property
    def fork_safe(self) -> bool:
        """Only a judge that says it is pure runs in forked workers: a callback may hold
        connections (an LLM client) that a child must not share."""
        return bool(getattr(self.judge, "fork_safe", False))

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict:
        verdict = self.judge.judge(local.content, remote.content, similarity)
        if verdict.relation == wave.INDEPENDENT:
            return PairVerdict(wave.INDEPENDENT, math.nan, similarity, verdict.confidence, verdict.reason)
        turn = (phase_mod.stance_offset(local.content, local.phase, local.stance, estimate_stance)
                - phase_mod.stance_offset(remote.content, remote.phase, remote.stance, estimate_stance))
        dphi = wave.phase_difference(wave.RELATION_PHASE[verdict.relation] + turn, 0.0)
        relation = wave.classify(1.0, dphi)  # the judge already decided "same topic"
        return PairVerdict(relation, dphi, similarity, verdict.confidence, verdict.reason)


@dataclass
class PlannedPair:
    remote_id: str
    local_id: str
    relation: str
    similarity: float
    dphi: float
    reason: str

    def to_dict(self) -> dict:
        return {"remote": self.remote_id, "local": self.local_id, "relation": self.relation,
                "similarity": round(self.similarity, 4),
                "phase_difference": None if math.isnan(self.dphi) else round(self.dphi, 4),
                "reason": self.reason}


@dataclass
class MergePlan:
    peer: str
    head: str
    inserts: list[Memory] = field(default_factory=list)
    updates: dict[str, Memory] = field(default_factory=dict)  # local rows changed, by id
    links: list[dict] = field(default_factory=list)
    cases: dict[str, dict] = field(default_factory=dict)
    trust_changes: list[dict] = field(default_factory=list)
    pairs: list[PlannedPair] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {r: 0 for r in wave.RELATIONS} | {"updated": 0, "retracted": 0})

    def summary(self) -> dict:
        return {"peer": self.peer, "head": self.head, "new": len(self.inserts), **self.counts,
                "cases": sorted(self.cases), "links": len(self.links),
                "trust": [{k: v for k, v in t.items() if k in ("agent_id", "delta", "reason")} for t in self.trust_changes]}


@dataclass(frozen=True)
class MergeContext:
    receiver: str
    trust: Mapping[str, float]
    known_cases: Mapping[str, dict]
    settings: Settings
    now: datetime


class Decided:
    """A comparator whose verdicts, by (local id, remote id), were reached apart from the
    plan (on every core). `pending` yields more of them as workers finish; a pair found
    nowhere goes to `inner`."""

    def __init__(self, inner: Comparator, verdicts: dict[tuple[str, str], PairVerdict],
                 pending: Iterator[Mapping[tuple[str, str], PairVerdict]] = iter(())):
        self.inner = inner
        self.candidate_floor = inner.candidate_floor
        self.verdicts = verdicts
        self.pending = pending

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict:
        key = (local.id, remote.id)
        while key not in self.verdicts:
            more = next(self.pending, None)
            if more is None:
                return self.inner.relate(local, remote, similarity)
            self.verdicts.update(more)
        return self.verdicts[key]


def judged_candidates(remote: Memory, candidates: Mapping[str, Sequence[tuple[Memory, float]]],
                      floor: float) -> list[tuple[Memory, float]]:
    """The local candidates the plan asks the comparator about for one incoming memory."""
    return [(c, s) for c, s in candidates.get(remote.id, ()) if s >= floor and c.id != remote.id]


def effective_amplitude(memory: Memory, trust_score: float, now: datetime, settings: Settings) -> float:
    return memory.amplitude * trust_score * trust.recency(parse_time(memory.created_at), now, memory.category,
                                                         settings.half_lives)


def plan(peer: str, head: str, incoming: Sequence[Memory], held: Mapping[str, Memory],
         candidates: Mapping[str, Sequence[tuple[Memory, float]]], comparator: Comparator,
         ctx: MergeContext) -> MergePlan:
    """Decide everything a pull of `peer` at `head` does. Pure: no I/O."""
    result = MergePlan(peer, head)
    stamp = iso(ctx.now)
    touched: dict[str, Memory] = {}  # local rows as this plan leaves them
    scores = dict(ctx.trust)

    def local(memory: Memory) -> Memory:
        if memory.id not in touched:
            touched[memory.id] = _own_copy(memory)
        return touched[memory.id]

    def trust_change(agent_id: str, reason: str, evidence: dict) -> None:
        if agent_id == ctx.receiver:
            return
        change = trust.change(agent_id, scores.get(agent_id, trust.START), reason, holder=ctx.receiver)
        if change.delta == 0.0:
            return  # held at the floor or the ceiling: no change, no ledger row (a big pull made thousands)
        scores[agent_id] = change.score_after
        result.trust_changes.append({"id": uuid7(), "agent_id": agent_id, "delta": change.delta,
                                     "score_after": change.score_after, "reason": reason,
                                     "evidence": json.dumps(evidence, sort_keys=True),
                                     "verifier": ctx.receiver, "created_at": stamp})

    def link(source: str, target: str, kind: str, weight: float) -> None:
        result.links.append({"source_id": source, "target_id": target, "link_type": kind, "weight": weight,
                             "created_by": ctx.receiver, "created_at": stamp})

    for remote in incoming:
        if remote.id in held:
            _plan_update(result, local(held[remote.id]), remote, stamp)
            continue
        remote = _own_copy(remote)
        a_remote = effective_amplitude(remote, scores.get(peer, trust.START), ctx.now, ctx.settings)
        verdicts = [(candidate, comparator.relate(candidate, remote, similarity))
                    for candidate, similarity in judged_candidates(remote, candidates, comparator.candidate_floor)]
        constructive = [(c, v) for c, v in verdicts if v.relation == wave.CONSTRUCTIVE]
        absorber = max(constructive, key=lambda cv: cv[1].similarity)[0] if constructive else None
        for candidate, v in verdicts:
            result.pairs.append(PlannedPair(remote.id, candidate.id, v.relation, v.similarity, v.dphi, v.reason))
            if v.relation == wave.DESTRUCTIVE:
                settled = _settled(result, ctx, candidate.id, remote.id)
                if settled is not None:
                    # a person already decided this pair (an agent meeting it after the verdict):
                    # follow the verdict's flags; no penalty, no new dispute
                    if settled.get(candidate.id) and not candidate.disputed:
                        L = local(candidate)
                        L.disputed, L.updated_at = True, stamp
                    remote.disputed = remote.disputed or settled.get(remote.id, False)
                    continue
                L = local(candidate)  # only rows the plan changes are copied and written back
                L.amplitude = wave.dispute_penalty(L.amplitude, v.similarity, penalty=ctx.settings.dispute_penalty)
                remote.amplitude = wave.dispute_penalty(remote.amplitude, v.similarity, penalty=ctx.settings.dispute_penalty)
                L.disputed = remote.disputed = True
                L.updated_at = stamp
                link(L.id, remote.id, "disputes", v.similarity)
                link(remote.id, L.id, "disputes", v.similarity)
                _plan_case(result, L, remote, v, ctx, stamp)
                trust_change(peer, "quarantined", {"memory_ids": [L.id, remote.id]})
            elif v.relation == wave.PARTIAL:
                link(remote.id, candidate.id, "partial_agreement", math.cos(v.dphi))
        if absorber is not None:
            L = local(absorber)
            v = next(v for c, v in constructive if c.id == absorber.id)
            before = L.amplitude
            remote_phase = L.phase + (v.dphi if wave.phase_difference(L.phase + v.dphi, remote.phase)
                                      <= wave.phase_difference(L.phase - v.dphi, remote.phase) else -v.dphi)
            L.amplitude, L.phase = wave.superpose(L.amplitude, L.phase, a_remote, remote_phase,
                                                  cap=ctx.settings.amplitude_cap)
            L.vector = wave.blend(L.vector, before, remote.vector, a_remote)
            L.merge_history = [*L.merge_history, {
                "source_agent": peer, "source_id": remote.id, "type": wave.CONSTRUCTIVE,
                "dphi": round(v.dphi, 6), "amplitude_before": round(before, 6),
                "amplitude_after": round(L.amplitude, 6), "at": stamp}]
            L.updated_at = stamp
            remote.absorbed_into = L.id
            link(remote.id, L.id, "consensus", v.similarity)
            if L.origin_agent != peer:
                trust_change(peer, "corroborated", {"memory_ids": [L.id, remote.id]})
        if remote.disputed:
            result.counts[wave.DESTRUCTIVE] += 1
        elif remote.absorbed_into is not None:
            result.counts[wave.CONSTRUCTIVE] += 1
        elif any(v.relation == wave.PARTIAL for _, v in verdicts):
            result.counts[wave.PARTIAL] += 1
        else:
            result.counts[wave.INDEPENDENT] += 1
        result.inserts.append(remote)
    result.updates = {mid: m for mid, m in touched.items()}
    return result


def _own_copy(memory: Memory) -> Memory:
    """A copy the plan may change without touching its input. Vectors are never
    changed in place (the plan assigns new ones), so they are shared: a deepcopy
    of every touched row was most of a 10k-memory pull's classify time."""
    out = object.__new__(type(memory))  # a shallow copy, as copy.copy makes, at a third of its cost
    out.__dict__.update(memory.__dict__)
    out.tags, out.parents = list(memory.tags), list(memory.parents)
    out.merge_history = [dict(h) for h in memory.merge_history]
    return out


def _plan_update(result: MergePlan, mine: Memory, theirs: Memory, stamp: str) -> None:
    """The origin changed a memory we hold: take what the origin controls."""
    if theirs.sync_version <= mine.sync_version and theirs.retracted == mine.retracted:
        return
    if theirs.retracted and not mine.retracted:
        result.counts["retracted"] += 1
    else:
        result.counts["updated"] += 1
    mine.retracted = theirs.retracted
    mine.signature = theirs.signature
    mine.sync_version = theirs.sync_version
    mine.tags = list(theirs.tags)
    if mine.absorbed_into is None and not mine.disputed:
        mine.amplitude, mine.phase = theirs.amplitude, theirs.phase
    mine.updated_at = stamp


def _settled(result: MergePlan, ctx: MergeContext, a: str, b: str) -> dict[str, bool] | None:
    """The disputed flags a person's verdict set on this pair, if its case is resolved."""
    cid = case_id(a, b)
    known = result.cases.get(cid) or ctx.known_cases.get(cid)
    if known is None or known["status"] != "resolved":
        return None
    return effects(known).disputed


def _plan_case(result: MergePlan, L: Memory, R: Memory, v: PairVerdict, ctx: MergeContext, stamp: str) -> None:
    cid = case_id(L.id, R.id)
    first, second = sorted([L, R], key=lambda m: m.id)
    known = result.cases.get(cid) or ctx.known_cases.get(cid)
    if known is not None:
        if known["status"] == "resolved":
            return
        row = dict(known)
        row["dispute_count"] = int(row["dispute_count"]) + 1
    else:
        row = {"id": cid, "memory_id_a": first.id, "memory_id_b": second.id,
               "agent_a": first.origin_agent, "agent_b": second.origin_agent,
               "similarity": v.similarity, "phase_diff": v.dphi, "dispute_count": 1,
               "status": "pending", "resolution": None, "created_at": stamp, "resolved_at": None}
    row["status"] = escalate(row["status"], int(row["dispute_count"]), ctx.settings.escalation_threshold)
    result.cases[cid] = row


def apply(repo, plan_: MergePlan, *, watermark: dict) -> None:
    """Write a plan in the caller's transaction (the caller commits)."""
    repo.upsert("agents", [watermark], key=["agent_id"])  # first: trust updates below land on it
    if plan_.inserts:
        repo.upsert("memories", [m.to_row() for m in plan_.inserts], key=["id"])
    if plan_.updates:
        repo.upsert("memories", [m.to_row() for m in plan_.updates.values()], key=["id"])
    if plan_.links:
        repo.upsert("skip_links", plan_.links, key=["source_id", "target_id", "link_type"])
    if plan_.cases:
        repo.upsert("quarantine", list(plan_.cases.values()), key=["id"])
    if plan_.trust_changes:
        repo.insert("trust_events", plan_.trust_changes)
        final: dict[str, float] = {}
        for change in plan_.trust_changes:
            final[change["agent_id"]] = change["score_after"]
        for agent_id, score in final.items():
            repo.update("agents", {"trust_score": score}, {"agent_id": agent_id})
