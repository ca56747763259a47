"""The merge plan (collective.merge.plan), pure: synthetic memories and their candidates
in, the rows a pull would write out. One pair first (relations, absorption, disputes,
known and resolved cases, trust at the floor), then random sets (conserving, pure,
absorbing into the best match, recording every dispute, moving only the peer's trust)."""

from __future__ import annotations

import copy
import itertools
import json
import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from collective import merge
from collective.config import Settings
from collective.core import trust, wave
from collective.model import Case, Memory, content_hash, iso, uuid7
from collective.quarantine import cases as quarantine

TAU = 2 * math.pi
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
DIM = 8
SEEDS = itertools.count()


def angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % TAU
    return min(d, TAU - d)


def unit(seed: int, dim: int = DIM) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=dim).astype(np.float32)
    return v / np.linalg.norm(v)


def memory(origin: str, *, phase: float = 0.0, amplitude: float = 0.5, vector: np.ndarray | None = None,
           content: str | None = None, created: datetime = NOW) -> Memory:
    mid = uuid7()
    content = content or f"memory {mid}"
    stamp = iso(created)
    return Memory(id=mid, content=content, summary=content, vector=unit(next(SEEDS)) if vector is None else vector,
                  dim=DIM, model_version="test", content_hash=content_hash(content), amplitude=amplitude,
                  phase=phase % TAU, category="knowledge", origin_agent=origin, created_at=stamp, updated_at=stamp,
                  signature="sig")


def context(receiver: str = "earth-1", scores: dict | None = None, cases: dict | None = None) -> merge.MergeContext:
    return merge.MergeContext(receiver=receiver, trust={receiver: 1.0, **(scores or {})},
                              known_cases=cases or {}, settings=Settings(), now=NOW)


def plan_one(local: Memory, remote: Memory, similarity: float, **ctx) -> merge.MergePlan:
    return merge.plan(remote.origin_agent, "head", [remote], {}, {remote.id: [(local, similarity)]},
                      merge.PhaseComparator(), context(**ctx))


phases = st.floats(0.0, TAU, allow_nan=False, exclude_max=True)
amps = st.floats(0.05, 1.0, allow_nan=False)
similarities = st.floats(0.0, 1.0, allow_nan=False)
scores = st.floats(trust.FLOOR, trust.CEILING, allow_nan=False)


# --- one pair ------------------------------------------------------------------------
@given(similarities, phases, phases, amps, amps)
def test_relation_is_symmetric_in_the_two_memories(similarity, phi_a, phi_b, amp_a, amp_b):
    a, b = memory("earth-1", phase=phi_a, amplitude=amp_a), memory("mars-1", phase=phi_b, amplitude=amp_b)
    comparator = merge.PhaseComparator()
    one, other = comparator.relate(a, b, similarity), comparator.relate(b, a, similarity)
    assert one.relation == other.relation and one.dphi == pytest.approx(other.dphi, abs=1e-12)
    # and the whole plan agrees whichever side holds which memory
    ab = plan_one(a, b, similarity, scores={"mars-1": 0.5})
    ba = plan_one(b, a, similarity, receiver="mars-1", scores={"earth-1": 0.5})
    assert [p.relation for p in ab.pairs] == [p.relation for p in ba.pairs]
    assert sorted(ab.cases) == sorted(ba.cases)
    for k in wave.RELATIONS:
        assert ab.counts[k] == ba.counts[k]


@pytest.mark.parametrize("similarity, dphi, relation", [
    (0.5999, 0.0, None),                     # below the floor: not even a candidate
    (0.6, 0.0, wave.CONSTRUCTIVE),
    (0.9, math.pi / 4 - 1e-9, wave.CONSTRUCTIVE),
    (0.9, math.pi / 4 + 1e-9, wave.PARTIAL),
    (0.9, 3 * math.pi / 4 - 1e-9, wave.PARTIAL),
    (0.9, 3 * math.pi / 4 + 1e-9, wave.DESTRUCTIVE),
    (0.9, math.pi, wave.DESTRUCTIVE),
])
def test_classification_boundaries_through_the_plan(similarity, dphi, relation):
    local = memory("earth-1", phase=TAU - 0.05)  # across the seam: dphi is folded
    remote = memory("mars-1", phase=TAU - 0.05 + dphi)
    result = plan_one(local, remote, similarity, scores={"mars-1": 0.5})
    assert [p.relation for p in result.pairs] == ([relation] if relation else [])
    expected = relation or wave.INDEPENDENT
    assert result.counts[expected] == 1 and sum(result.counts[r] for r in wave.RELATIONS) == 1


@given(amps, amps, phases, st.booleans())
def test_in_phase_absorption_adds_amplitudes_up_to_the_cap(amp_local, amp_remote, phi, seam):
    # full trust, fresh memory: the remote's effective amplitude is its own
    phi_remote = phi if not seam else (phi + TAU - 1e-12) % TAU
    local, remote = memory("earth-1", phase=phi, amplitude=amp_local), memory("earth-2", phase=phi_remote, amplitude=amp_remote)
    result = plan_one(local, remote, 0.95, scores={"earth-2": 1.0})
    merged = result.updates[local.id]
    assert merged.amplitude == pytest.approx(min(amp_local + amp_remote, Settings().amplitude_cap), rel=1e-6)
    assert angle_gap(merged.phase, phi) < 1e-6 and 0.0 <= merged.phase < TAU
    assert result.inserts[0].absorbed_into == local.id


@given(amps, amps, phases, phases, scores, st.integers(0, 60))
def test_absorption_is_the_superposition_of_effective_amplitudes(amp_local, amp_remote, phi_local, turn, score, age_days):
    phi_remote = phi_local + (turn / TAU) * (math.pi / 4) * 0.99  # always within pi/4: constructive
    created = NOW - timedelta(days=age_days)
    local = memory("earth-1", phase=phi_local, amplitude=amp_local)
    remote = memory("mars-1", phase=phi_remote, amplitude=amp_remote, created=created)
    result = plan_one(local, remote, 0.8, scores={"mars-1": score})
    merged = result.updates[local.id]
    effective = amp_remote * score * trust.recency(created, NOW, "knowledge")
    expected_amplitude, expected_phase = wave.superpose(amp_local, phi_local, effective, phi_remote)
    assert merged.amplitude == pytest.approx(expected_amplitude, rel=1e-9)
    assert angle_gap(merged.phase, expected_phase) < 1e-9
    assert merged.amplitude <= Settings().amplitude_cap
    assert merged.amplitude >= amp_local - 1e-12  # agreement never weakens
    record = merged.merge_history[-1]
    assert record["source_id"] == remote.id and record["source_agent"] == "mars-1"
    assert record["amplitude_before"] == pytest.approx(amp_local, abs=1e-6)
    assert np.linalg.norm(merged.vector) == pytest.approx(1.0, abs=1e-5)


@given(st.floats(0.0, math.pi / 8 - 1e-6), amps, amps)  # 2 eps apart: constructive
def test_circular_mean_phase_across_the_seam_in_a_merge(eps, amp_local, amp_remote):
    local, remote = memory("earth-1", phase=eps, amplitude=amp_local), memory("earth-2", phase=TAU - eps, amplitude=amp_remote)
    merged = plan_one(local, remote, 0.9, scores={"earth-2": 1.0}).updates[local.id]
    assert 0.0 <= merged.phase < TAU
    assert angle_gap(merged.phase, 0.0) <= eps + 1e-9  # between the two, never near pi


@given(amps, amps, st.floats(0.6, 1.0))
def test_antiphase_disputes_both_and_opens_one_case(amp_local, amp_remote, similarity):
    local, remote = memory("earth-1", phase=0.1, amplitude=amp_local), memory("mars-1", phase=0.1 + math.pi, amplitude=amp_remote)
    result = plan_one(local, remote, similarity, scores={"mars-1": 0.5})
    penalty = 1 - Settings().dispute_penalty * similarity
    assert result.updates[local.id].disputed and result.inserts[0].disputed
    assert result.updates[local.id].amplitude == pytest.approx(amp_local * penalty)
    assert result.inserts[0].amplitude == pytest.approx(amp_remote * penalty)
    assert list(result.cases) == [quarantine.case_id(local.id, remote.id)]
    case = result.cases[quarantine.case_id(remote.id, local.id)]
    assert (case.memory_id_a, case.memory_id_b) == tuple(sorted([local.id, remote.id]))
    assert case.dispute_count == 1 and case.status == "pending"
    kinds = sorted((l["source_id"], l["target_id"]) for l in result.links if l["link_type"] == "disputes")
    assert kinds == sorted([(local.id, remote.id), (remote.id, local.id)])


@given(st.sampled_from(["pending", "escalated"]))
def test_a_pair_an_open_case_names_is_never_absorbed(status):
    """A challenge's counter-claim meets the memory it challenges at its origin's next pull:
    a person decides that pair, so an agreement the judge reads there absorbs nothing."""
    local, remote = memory("earth-1", phase=0.0), memory("mars-1", phase=0.0)
    cid = quarantine.case_id(local.id, remote.id)
    known = Case.from_row({"id": cid, "memory_id_a": min(local.id, remote.id), "memory_id_b": max(local.id, remote.id),
                           "agent_a": "x", "agent_b": "y", "similarity": 0.9, "phase_diff": math.pi,
                           "dispute_count": 1, "status": status, "resolution": None, "created_at": iso(NOW),
                           "resolved_at": None})
    assert plan_one(local, remote, 0.9, scores={"mars-1": 0.5}).inserts[0].absorbed_into == local.id  # no case
    result = plan_one(local, remote, 0.9, scores={"mars-1": 0.5}, cases={cid: known})
    assert result.inserts[0].absorbed_into is None and local.id not in result.updates


@given(st.integers(0, 5), st.sampled_from(["pending", "escalated"]))
def test_a_pending_case_counts_one_more_dispute_and_escalates_at_the_threshold(count, status):
    local, remote = memory("earth-1", phase=0.0), memory("mars-1", phase=math.pi)
    cid = quarantine.case_id(local.id, remote.id)
    known = Case.from_row({"id": cid, "memory_id_a": min(local.id, remote.id), "memory_id_b": max(local.id, remote.id),
                           "agent_a": "x", "agent_b": "y", "similarity": 0.9, "phase_diff": math.pi,
                           "dispute_count": count, "status": status, "resolution": None, "created_at": iso(NOW),
                           "resolved_at": None})
    result = plan_one(local, remote, 0.9, scores={"mars-1": 0.5}, cases={cid: known})
    if status == "escalated":  # it waits for a person already: met again, the shared row is left as it is
        assert result.cases == {}
        assert {(l["source_id"], l["target_id"]) for l in result.links if l["link_type"] == "disputes"} == \
            {(local.id, remote.id), (remote.id, local.id)}
        assert result.inserts[0].disputed
        return
    case = result.cases[cid]
    assert case.dispute_count == count + 1
    expected = "escalated" if count + 1 >= Settings().escalation_threshold else "pending"
    assert case.status == expected and case.created_at == known.created_at


@given(st.sampled_from(quarantine.KEEP_CHOICES), amps, amps)
def test_a_resolved_pair_met_again_follows_the_verdict(keep, amp_local, amp_remote):
    local, remote = memory("earth-2", phase=0.0, amplitude=amp_local), memory("mars-1", phase=math.pi, amplitude=amp_remote)
    cid = quarantine.case_id(local.id, remote.id)
    first, second = sorted([local, remote], key=lambda m: m.id)
    case = Case.from_row({"id": cid, "memory_id_a": first.id, "memory_id_b": second.id, "agent_a": first.origin_agent,
                          "agent_b": second.origin_agent, "similarity": 0.9, "phase_diff": math.pi, "dispute_count": 2,
                          "status": "resolved", "resolution": json.dumps({"keep": keep}), "created_at": iso(NOW),
                          "resolved_at": iso(NOW)})
    result = plan_one(local, remote, 0.9, scores={"mars-1": 0.5}, cases={cid: case})
    flags = quarantine.effects(case).disputed
    assert result.cases == {} and result.trust_changes == []  # nothing reopened, nobody penalised
    assert result.inserts[0].disputed == flags[remote.id] and result.inserts[0].amplitude == amp_remote
    assert result.updates.get(local.id, local).disputed == flags[local.id]
    assert result.updates.get(local.id, local).amplitude == amp_local


def disputing_pull(n: int, score: float) -> merge.MergePlan:
    """A pull of `n` memories of mars-1, each contradicting one of the receiver's."""
    locals_ = [memory("earth-1", phase=0.0) for _ in range(n)]
    remotes = [memory("mars-1", phase=math.pi) for _ in range(n)]
    candidates = {r.id: [(l, 0.9)] for l, r in zip(locals_, remotes)}
    return merge.plan("mars-1", "head", remotes, {}, candidates, merge.PhaseComparator(),
                      context(scores={"mars-1": score}))


@given(st.integers(1, 30))
def test_trust_near_the_floor_stops_at_it(n):
    result = disputing_pull(n, trust.FLOOR + 0.005)
    assert len(result.cases) == n  # every dispute is recorded ...
    assert [t.delta for t in result.trust_changes] == pytest.approx([-0.005])  # ... the ledger only moves
    assert disputing_pull(n, trust.FLOOR).trust_changes == []  # at the floor: no empty row


@given(st.integers(1, 300), st.floats(trust.FLOOR + 0.001, trust.CEILING))
def test_one_pull_moves_trust_by_a_bounded_amount_however_many_cases_it_opens(n, score):
    result = disputing_pull(n, score)
    assert len(result.cases) == n
    (row,) = result.trust_changes  # one row for the pull, naming every case it opened
    assert row.reason == "quarantined" and row.agent_id == "mars-1"
    assert row.facts()["case_ids"] == sorted(result.cases)
    bound = trust.BOUND_PER_PULL["quarantined"]
    assert row.delta == pytest.approx(trust.clamp(score - min(0.01 * n, bound)) - score)
    assert row.score_after >= max(trust.FLOOR, score - bound) - 1e-12  # at 0.5 it keeps 0.48


# --- many memories ---------------------------------------------------------------------
@st.composite
def merge_inputs(draw):
    n_local = draw(st.integers(0, 5))
    n_remote = draw(st.integers(1, 6))
    locals_ = [memory(draw(st.sampled_from(["earth-1", "earth-2"])), phase=draw(phases), amplitude=draw(amps))
               for _ in range(n_local)]
    remotes = [memory("mars-1", phase=draw(phases), amplitude=draw(amps)) for _ in range(n_remote)]
    candidates = {}
    for r in remotes:
        chosen = draw(st.lists(st.sampled_from(locals_), unique_by=lambda m: m.id, max_size=len(locals_))) if locals_ else []
        candidates[r.id] = [(m, draw(st.floats(0.3, 1.0))) for m in chosen]
    held_scores = {"mars-1": draw(scores), "earth-2": draw(scores)}
    return locals_, remotes, candidates, held_scores


@given(merge_inputs())
def test_plan_properties_on_random_sets(inputs):
    locals_, remotes, candidates, held_scores = inputs
    before = copy.deepcopy((locals_, remotes))
    result = merge.plan("mars-1", "head", remotes, {}, candidates, merge.PhaseComparator(), context(scores=held_scores))

    # pure: the inputs are untouched
    for m, original in zip([*locals_, *remotes], [*before[0], *before[1]]):
        assert m.to_row() == original.to_row()

    # conserving: every remote memory is planned exactly once, as itself (its claim still verifies)
    assert [m.id for m in result.inserts] == [r.id for r in remotes]
    for planned, original in zip(result.inserts, remotes):
        assert planned.claim() == original.claim()
    assert sum(result.counts[r] for r in wave.RELATIONS) == len(remotes)

    by_id = {m.id: m for m in locals_}
    for r in result.inserts:
        verdicts = [(m, s) for m, s in candidates[r.id] if s >= wave.SIMILARITY_THRESHOLD]
        relation = {m.id: wave.classify(s, wave.phase_difference(m.phase, r.phase)) for m, s in verdicts}
        constructive = [(m, s) for m, s in verdicts if relation[m.id] == wave.CONSTRUCTIVE]
        destructive = [m for m, s in verdicts if relation[m.id] == wave.DESTRUCTIVE]
        # absorbed into at most one local memory: the most similar constructive one
        if constructive:
            best = max(s for _, s in constructive)
            assert r.absorbed_into in {m.id for m, s in constructive if s == best}
            assert any(h["source_id"] == r.id for h in result.updates[r.absorbed_into].merge_history)
        else:
            assert r.absorbed_into is None
        # every destructive pair is recorded, even when another pair agrees
        for m in destructive:
            assert quarantine.case_id(m.id, r.id) in result.cases
            assert result.updates[m.id].disputed and r.disputed
        assert r.disputed == bool(destructive)

    consensus = [l for l in result.links if l["link_type"] == "consensus"]
    assert len(consensus) == sum(1 for r in result.inserts if r.absorbed_into)
    for l in result.links:
        if l["link_type"] == "partial_agreement":
            assert abs(l["weight"]) <= math.cos(math.pi / 4) + 1e-9
    for m in result.updates.values():
        assert 0.0 <= m.amplitude <= Settings().amplitude_cap
        assert m.id in by_id and 0.0 <= m.phase < TAU

    # trust: only the peer moves, one step at a time (the pull's quarantine one bounded step
    # naming its cases), always within [0.1, 1]
    assert all(t.agent_id == "mars-1" for t in result.trust_changes)
    score = held_scores["mars-1"]
    for t in result.trust_changes:
        step = trust.DELTAS[t.reason]
        if t.reason == "quarantined":
            step *= trust.folded_weight("quarantined", len(t.facts()["case_ids"]))
        assert t.score_after == pytest.approx(trust.clamp(score + step))
        assert trust.FLOOR <= t.score_after <= trust.CEILING
        score = t.score_after
    assert sum(t.reason == "quarantined" for t in result.trust_changes) <= 1


def test_the_receiver_never_raises_its_own_trust():
    # the receiver's own memory corroborated by itself would be a self-raise: no trust change
    local, remote = memory("earth-1", phase=0.0), memory("earth-1", phase=0.0)
    result = merge.plan("earth-1", "head", [remote], {}, {remote.id: [(local, 0.9)]}, merge.PhaseComparator(), context())
    assert result.trust_changes == [] and result.inserts[0].absorbed_into == local.id


# --- updates of memories held ------------------------------------------------------------
def version(held: Memory, sync_version: int, *, retracted: bool) -> Memory:
    """The origin's row of `held` at one sync_version (its tags say which)."""
    row = held.copy()
    row.sync_version, row.retracted, row.tags = sync_version, retracted, [f"v{sync_version}"]
    return row


def take(held: Memory, remote: Memory) -> tuple[Memory, merge.MergePlan]:
    result = merge.plan(remote.origin_agent, "head", [remote], {held.id: held}, {}, merge.PhaseComparator(), context())
    return result.updates.get(held.id, held), result


@given(st.lists(st.integers(1, 8), min_size=1, max_size=12), st.integers(2, 9))
def test_versions_applied_in_any_order_end_at_the_highest(order, retracted_from):
    """Versions of one memory arriving in any order, repeated or missing (stale copies, a
    rolled-back branch): the copy only moves forward and ends at the highest version seen,
    retracted exactly when that version is."""
    held = memory("mars-1")
    retractions = 0
    for v in order:
        before = held.sync_version
        held, result = take(held, version(held, v, retracted=v >= retracted_from))
        assert held.sync_version == max(before, v)
        assert held.retracted == (held.sync_version >= retracted_from)
        retractions += result.counts["retracted"]
    assert held.sync_version == max(1, *order) and held.tags == ([f"v{held.sync_version}"] if max(order) > 1 else [])
    assert retractions == (1 if held.retracted else 0)


@given(st.integers(2, 6), st.integers(1, 9))
def test_a_retraction_is_never_undone(retracted_at, offered):
    """Not by an older version, nor by a higher one lifting it: sync_version is not signed,
    so only a replayed claim could lift a retraction."""
    held = version(memory("mars-1"), retracted_at, retracted=True)
    after, result = take(held, version(held, offered, retracted=False))
    assert after.retracted and after.sync_version == retracted_at
    assert result.counts["updated"] == result.counts["retracted"] == 0
