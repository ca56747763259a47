"""The merge plan: what a peer learned, folded in by wave interference. Pure: no I/O.

Given the peer's new memories, the local candidates of each and the
receiver's trust, `plan()` decides every pair (constructive, partial,
destructive, independent) and returns the rows to write; `merge.apply`
writes them.
"""

from __future__ import annotations

import functools

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Mapping, Sequence

from ..config import Settings
from ..core import trust, wave
from ..model import Case, Memory, TrustEvent, iso, parse_time, uuid7
from ..model.enums import CaseStatus, LinkType, Relation
from ..quarantine.cases import case_id, effects, escalate
from .candidates import judged_candidates
from .comparators import Comparator, PairVerdict

@dataclass
class PlannedPair:
    remote_id: str
    local_id: str
    relation: Relation
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
    cases: dict[str, Case] = field(default_factory=dict)
    trust_changes: list[TrustEvent] = field(default_factory=list)
    pairs: list[PlannedPair] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {r: 0 for r in wave.RELATIONS} | {"updated": 0, "retracted": 0})

    def changes_nothing(self) -> bool:
        """Whether applying this plan would write no row but the peer's watermark."""
        return not (self.inserts or self.updates or self.links or self.cases or self.trust_changes)

    def summary(self) -> dict:
        return {"peer": self.peer, "head": self.head, "new": len(self.inserts), **self.counts,
                "cases": sorted(self.cases), "links": len(self.links),
                "trust": [{"agent_id": t.agent_id, "delta": t.delta, "reason": t.reason} for t in self.trust_changes]}


@dataclass(frozen=True)
class MergeContext:
    receiver: str
    trust: Mapping[str, float]
    known_cases: Mapping[str, Case]
    settings: Settings
    now: datetime
    unsettled: frozenset[str] = frozenset()  # resolved cases whose verdict has not taken effect here
    # the refutation (refuted_by, valid_until) verdicts applied here give a memory arriving, or None
    refute: Callable[[Memory], tuple[str, str] | None] = lambda memory: None
    # the local copies absorbed into each memory an incoming row retracts: released with it
    absorbed: Mapping[str, Sequence[Memory]] = field(default_factory=dict)


def effective_amplitude(memory: Memory, trust_score: float, now: datetime, settings: Settings) -> float:
    return memory.amplitude * trust_score * trust.recency(parse_time(memory.created_at), now, memory.category,
                                                         settings.half_lives)


def plan(peer: str, head: str, incoming: Sequence[Memory], held: Mapping[str, Memory],
         candidates: Mapping[str, Sequence[tuple[Memory, float]]], comparator: Comparator,
         ctx: MergeContext) -> MergePlan:
    """Decide everything a pull of `peer` at `head` does. Pure: no I/O."""
    planner = _Planner(MergePlan(peer, head), ctx)
    for remote in incoming:
        if remote.id in held:
            _plan_update(planner, held[remote.id], remote)
        else:
            planner.meet(remote, comparator, judged_candidates(remote, candidates, comparator.candidate_floor))
    planner.charge_quarantine()
    retracted = {m.id for m in planner.touched.values() if m.retracted}
    for memory in planner.result.inserts:  # absorbed before this plan retracted what took it in
        if memory.absorbed_into in retracted:
            memory.absorbed_into = None
    planner.result.updates = dict(planner.touched)
    return planner.result


def plan_challenge(original: Memory, counter: Memory, similarity: float, reason: str, ctx: MergeContext) -> MergePlan:
    """A challenge: the receiver's counter-claim disputes a memory it holds, on its word, as a
    destructive meeting in a merge would (both weakened, flagged and linked, a case opened),
    whatever the judge reads. It moves no trust: an open case is a question for a person.
    Pure: no I/O."""
    planner = _Planner(MergePlan(ctx.receiver, ""), ctx)
    counter = counter.copy()
    planner.dispute(original, counter, PairVerdict(wave.DESTRUCTIVE, math.pi, similarity, 1.0, reason))
    planner.result.inserts.append(counter)
    planner.result.counts[Relation.DESTRUCTIVE] += 1
    planner.result.updates = dict(planner.touched)
    return planner.result


class _Planner:
    """One plan in the making: the local rows it has changed so far, the receiver's
    running view of trust, and the rows to write."""

    def __init__(self, result: MergePlan, ctx: MergeContext):
        self.result = result
        self.ctx = ctx
        self.stamp = iso(ctx.now)
        self.touched: dict[str, Memory] = {}  # local rows as this plan leaves them
        self.trust = trust.TrustBook(ctx.receiver, dict(ctx.trust))
        self.quarantined: set[str] = set()  # the cases this pull opened or counted

    def local(self, memory: Memory) -> Memory:
        """The plan's own copy of a local row: only rows the plan changes are copied and written back."""
        if memory.id not in self.touched:
            self.touched[memory.id] = memory.copy()
        return self.touched[memory.id]

    def move_trust(self, agent_id: str, reason: str, evidence: dict, weight: float = 1.0) -> None:
        moved = self.trust.move(agent_id, reason, weight)
        if moved is not None:  # a big pull at the floor or ceiling would make thousands of empty rows
            self.result.trust_changes.append(trust.ledger_row(
                moved, event_id=uuid7(), evidence=evidence, verifier=self.ctx.receiver, at=self.stamp))

    def link(self, source: str, target: str, kind: LinkType, weight: float) -> None:
        self.result.links.append({"source_id": source, "target_id": target, "link_type": kind, "weight": weight,
                                  "created_by": self.ctx.receiver, "created_at": self.stamp})

    def meet(self, remote: Memory, comparator: Comparator, judged: Sequence[tuple[Memory, float]]) -> None:
        """A new memory of the peer against its local candidates."""
        peer = self.result.peer
        remote = remote.copy()
        a_remote = effective_amplitude(remote, self.trust.scores.get(peer, trust.START), self.ctx.now,
                                       self.ctx.settings)
        verdicts = [(candidate, comparator.relate(candidate, remote, similarity)) for candidate, similarity in judged]
        self.follow_verdicts(remote)
        # a standing claim is never absorbed into a refuted one (recall would hide it with it)
        # nor into one this pull retracted
        # nor into the memory an open case pairs it with (a challenge's counter-claim: a person
        # decides that pair, whatever the judge reads)
        constructive = [(c, v) for c, v in verdicts
                        if v.relation == wave.CONSTRUCTIVE and (remote.refuted_by or not c.refuted_by)
                        and not self.touched.get(c.id, c).retracted and not self.case_open_on(c.id, remote.id)]
        for candidate, v in verdicts:
            self.result.pairs.append(PlannedPair(remote.id, candidate.id, v.relation, v.similarity, v.dphi, v.reason))
            if v.relation == wave.DESTRUCTIVE and (remote.refuted_by or candidate.refuted_by):
                self.follow_settled(candidate, remote)  # a claim a person refuted is not disputed again
                continue
            if v.relation == wave.DESTRUCTIVE:
                self.dispute(candidate, remote, v)
            elif v.relation == wave.PARTIAL:
                self.link(remote.id, candidate.id, LinkType.PARTIAL_AGREEMENT, math.cos(v.dphi))
        if constructive:  # absorbed by the most similar agreeing memory only
            absorber, v = max(constructive, key=lambda cv: cv[1].similarity)
            self.absorb(self.local(absorber), remote, v, a_remote)
        self.result.counts[_relation_of(remote, verdicts)] += 1
        self.result.inserts.append(remote)

    def follow_verdicts(self, remote: Memory) -> None:
        """A memory a verdict applied here refutes is refuted on arrival, by the rule every
        holder evaluates alike (quarantine/refutation.py): named on a losing side, or saying
        the same thing as one that is. What the peer's copy says of it is the peer's own
        state, not taken: its verdicts may differ, or stand as they did before."""
        remote.refuted_by, remote.valid_until = self.ctx.refute(remote) or (None, None)

    def follow_settled(self, candidate: Memory, remote: Memory) -> bool:
        """When a person already decided this pair (an agent meeting it after the verdict),
        follow the verdict's flags: no penalty, no new dispute. Returns whether one had."""
        settled = _settled(self.result, self.ctx, candidate.id, remote.id)
        if settled is None:
            return False
        if settled.get(candidate.id) and not candidate.disputed:
            L = self.local(candidate)
            L.disputed, L.updated_at = True, self.stamp
        # the verdict's flag, not the peer's: its copy may carry the flag of a verdict that
        # stood there before, and this one was applied here before the copy came; kept
        # while another dispute open here names it
        remote.disputed = settled.get(remote.id, False) or (remote.disputed and self.open_case_on(remote.id))
        return True

    @functools.cached_property
    def _named_by_open_cases(self) -> frozenset[str]:
        """The memories an open case held here names (read once a plan: every case held)."""
        return frozenset(m for case in self.ctx.known_cases.values() if not case.resolved for m in case.pair)

    def case_open_on(self, a: str, b: str) -> bool:
        """Whether an open case held here pairs these two memories."""
        known = self.ctx.known_cases.get(case_id(a, b))
        return known is not None and not known.resolved

    def open_case_on(self, memory_id: str) -> bool:
        """Whether an open case held here, or planned in this pull, names the memory."""
        return memory_id in self._named_by_open_cases or any(
            memory_id in case.pair and not case.resolved for case in self.result.cases.values())

    def dispute(self, candidate: Memory, remote: Memory, v: PairVerdict) -> None:
        """Destructive: keep both, weaken both, link them, open or count a case."""
        if self.follow_settled(candidate, remote):
            return
        L = self.local(candidate)
        penalty = self.ctx.settings.dispute_penalty
        L.amplitude = wave.dispute_penalty(L.amplitude, v.similarity, penalty=penalty)
        remote.amplitude = wave.dispute_penalty(remote.amplitude, v.similarity, penalty=penalty)
        L.disputed = remote.disputed = True
        L.updated_at = self.stamp
        self.link(L.id, remote.id, LinkType.DISPUTES, v.similarity)
        self.link(remote.id, L.id, LinkType.DISPUTES, v.similarity)
        _plan_case(self.result, L, remote, v, self.ctx, self.stamp)
        self.quarantined.add(case_id(L.id, remote.id))

    def charge_quarantine(self) -> None:
        """The peer's trust for the cases this pull opened or counted: one ledger row naming
        them all, moved by at most trust.BOUND_PER_PULL however many there are. Open cases
        are questions for a person, not verdicts: a big pull of an honest peer where the
        judge is wrong must not take it to the floor (a verdict against it still does)."""
        if self.quarantined:
            cases = sorted(self.quarantined)
            self.move_trust(self.result.peer, "quarantined", {"case_ids": cases},
                            weight=trust.folded_weight("quarantined", len(cases)))

    def absorb(self, L: Memory, remote: Memory, v: PairVerdict, a_remote: float) -> None:
        """Constructive: L takes in the remote wave; the remote row is kept as an absorbed copy."""
        peer = self.result.peer
        before = L.amplitude
        # the remote phase as the verdict sees it, on the side of L nearest the stored one
        remote_phase = L.phase + (v.dphi if wave.phase_difference(L.phase + v.dphi, remote.phase)
                                  <= wave.phase_difference(L.phase - v.dphi, remote.phase) else -v.dphi)
        L.amplitude, L.phase = wave.superpose(L.amplitude, L.phase, a_remote, remote_phase,
                                              cap=self.ctx.settings.amplitude_cap)
        L.vector = wave.blend(L.vector, before, remote.vector, a_remote)
        L.merge_history = [*L.merge_history, {
            "source_agent": peer, "source_id": remote.id, "type": wave.CONSTRUCTIVE,
            "dphi": round(v.dphi, 6), "amplitude_before": round(before, 6),
            "amplitude_after": round(L.amplitude, 6), "at": self.stamp}]
        L.updated_at = self.stamp
        remote.absorbed_into = L.id
        self.link(remote.id, L.id, LinkType.CONSENSUS, v.similarity)
        if L.origin_agent != peer:
            self.move_trust(peer, "corroborated", {"memory_ids": [L.id, remote.id]})


def _relation_of(remote: Memory, verdicts: Sequence[tuple[Memory, PairVerdict]]) -> Relation:
    """What the incoming memory became, for the plan's counts."""
    if remote.disputed:
        return Relation.DESTRUCTIVE
    if remote.absorbed_into is not None:
        return Relation.CONSTRUCTIVE
    if any(v.relation == wave.PARTIAL for _, v in verdicts):
        return Relation.PARTIAL
    return Relation.INDEPENDENT


def _plan_update(planner: _Planner, held: Memory, theirs: Memory) -> None:
    """The origin changed a memory we hold: take what the origin controls. Only a higher
    sync_version does (every change by the origin, a retraction too, raises it): an older
    row, from a rolled-back branch or a stale copy, never moves the copy back. A retraction
    is final: the origin never lifts one, and sync_version is not signed, so a row lifting
    one is an old claim replayed. A row that changes nothing here is not touched: a pull
    that writes nothing makes no commit."""
    current = planner.touched.get(held.id, held)
    if theirs.sync_version <= current.sync_version or (current.retracted and not theirs.retracted):
        return
    result, mine, stamp = planner.result, planner.local(held), planner.stamp
    if theirs.retracted and not mine.retracted:
        result.counts["retracted"] += 1
        # copies of other origins it absorbed were never retracted: they are recalled again
        for copy in planner.ctx.absorbed.get(mine.id, ()):
            released = planner.local(copy)
            released.absorbed_into, released.updated_at = None, stamp
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
    if known is None or not known.resolved or cid in ctx.unsettled:
        return None
    return effects(known).disputed


def _plan_case(result: MergePlan, L: Memory, R: Memory, v: PairVerdict, ctx: MergeContext, stamp: str) -> None:
    cid = case_id(L.id, R.id)
    first, second = sorted([L, R], key=lambda m: m.id)
    known = result.cases.get(cid) or ctx.known_cases.get(cid)
    if known is not None:
        if known.status != CaseStatus.PENDING:
            # resolved: the verdict stands; escalated: it waits for a person already. Counting on
            # would rewrite the shared case at every agent's meeting (each a version every agent
            # then fetches) for a number that decides nothing more.
            return
        case = known.replace(dispute_count=known.dispute_count + 1)
    else:
        case = Case(id=cid, memory_id_a=first.id, memory_id_b=second.id, agent_a=first.origin_agent,
                    agent_b=second.origin_agent, similarity=v.similarity, phase_diff=v.dphi, created_at=stamp)
    result.cases[cid] = case.replace(status=escalate(case.status, case.dispute_count,
                                                     ctx.settings.escalation_threshold))
