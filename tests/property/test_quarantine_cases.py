"""Quarantine cases (collective.quarantine.cases): merge_cases is a join, so copies of
one case heard in any order, any number of times, converge on the furthest state."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from collective.model import Case
from collective.model.enums import CaseStatus, Keep
from collective.quarantine import cases as quarantine
from collective.quarantine import grouping

PAIR = ("01a0-a", "01a0-b")
signers = st.sampled_from(["earth-1", "mars-1"])
signatures = st.sampled_from(["sig-1", "sig-2"])
stamps = st.sampled_from(["2026-03-01T10:00:00.000000Z", "2026-03-01T11:00:00.000000Z", "2026-03-02T09:30:00.000000Z"])


@st.composite
def verdicts(draw):
    """A verdict document as a reviewer signs it (the parts the join reads), or None."""
    if not draw(st.booleans()):
        return None
    keep = draw(st.sampled_from(tuple(Keep)))
    return {"keep": keep, "by": "ana", "reviewer_key": draw(st.sampled_from(["key-ana", "key-bo"])),
            "at": draw(stamps), **({"revision": r} if (r := draw(st.integers(0, 2))) else {})}


@st.composite
def case_copies(draw, verdict=verdicts()):
    decided = draw(verdict)
    if decided is None:
        status = draw(st.sampled_from([CaseStatus.PENDING, CaseStatus.ESCALATED]))
    else:  # the status a verdict gives (signing.check_cases sets it so on every row it keeps)
        status = CaseStatus.ESCALATED if decided["keep"] == Keep.REOPEN else CaseStatus.RESOLVED
    return Case.from_row({
        "id": quarantine.case_id(*PAIR), "memory_id_a": PAIR[0], "memory_id_b": PAIR[1],
        "agent_a": "earth-1", "agent_b": "mars-1",
        # each side measures the pair with its own (possibly blended) vectors
        "similarity": draw(st.sampled_from([0.91, 0.93, 0.97])), "phase_diff": draw(st.sampled_from([math.pi, 3.0])),
        "dispute_count": draw(st.integers(1, 6)), "status": status,
        "resolution": json.dumps(decided) if decided else None,
        "created_at": draw(stamps), "resolved_at": decided["at"] if decided else None,
        # the signatures travel with the parts they cover (opening, count, verdict)
        "opened_by": draw(signers), "opening_signature": draw(signatures),
        "counted_by": draw(signers), "count_signature": draw(signatures),
        "verdict_signature": draw(signatures) if decided else None,
        # the dispute it joined, as the agent that linked it saw it (never a larger id)
        "dispute": draw(st.sampled_from([None, "0" * 32, "00ff" + "0" * 28])),
    })


@given(case_copies(), case_copies())
def test_merge_cases_is_commutative(a, b):
    assert quarantine.merge_cases(a, b) == quarantine.merge_cases(b, a)


@given(case_copies(), case_copies(), case_copies())
def test_merge_cases_is_associative(a, b, c):
    m = quarantine.merge_cases
    assert m(m(a, b), c) == m(a, m(b, c))


@given(case_copies(), case_copies())
def test_merge_cases_is_idempotent_and_keeps_the_furthest_state(a, b):
    m = quarantine.merge_cases
    assert m(a, a) == a
    ab = m(a, b)
    assert m(ab, b) == ab and m(ab, a) == ab  # absorbing: hearing an old copy again changes nothing
    assert ab.dispute_count == max(a.dispute_count, b.dispute_count)
    assert ab.created_at == min(a.created_at, b.created_at)
    counted = [c for c in (a, b) if c.dispute_count == ab.dispute_count]
    assert (ab.counted_by, ab.count_signature) in {(c.counted_by, c.count_signature) for c in counted}
    decided = [c for c in (a, b) if c.resolution]
    if decided:  # the verdict of the highest revision stands, and its kind sets the status
        assert (ab.resolution, ab.verdict_signature) in {(c.resolution, c.verdict_signature) for c in decided}
        assert quarantine.revision(ab.decision()) == max(quarantine.revision(c.decision()) for c in decided)
        assert ab.status == ("escalated" if ab.decision()["keep"] == Keep.REOPEN else "resolved")
    else:
        rank = quarantine.STATUSES.index
        assert rank(ab.status) == max(rank(a.status), rank(b.status))
    assert m(None, a) == a == m(a, None)


decisions = verdicts().filter(lambda v: v is not None)


@given(case_copies(decisions), case_copies(decisions), stamps)
def test_a_verdict_that_saw_another_stands_over_it_whatever_their_times(a, b, backdated):
    """A writer that backdates a verdict (to 1970, say) does not move it ahead of one of a
    later revision: the order of verdicts reads no time."""
    older, newer = sorted((a, b), key=lambda c: quarantine.revision(c.decision()))
    if quarantine.revision(older.decision()) == quarantine.revision(newer.decision()):
        newer = newer.replace(resolution=json.dumps({**newer.decision(), "revision": quarantine.revision(
            newer.decision()) + 1}))
    older = older.replace(resolution=json.dumps({**older.decision(), "at": backdated}), resolved_at=backdated)
    assert quarantine.merge_cases(older, newer).resolution == newer.resolution
    assert quarantine.merge_cases(newer, older).resolution == newer.resolution


@given(st.lists(case_copies(), min_size=1, max_size=5), st.randoms(use_true_random=False))
def test_union_converges_in_any_order(copies, rnd):
    shuffled = list(copies)
    rnd.shuffle(shuffled)
    assert quarantine.joined(copies) == quarantine.joined(shuffled) == quarantine.joined(*[[c] for c in shuffled])


def case(cid: str, dispute: str | None, a: str = "m0", b: str = "m1") -> Case:
    """A case of the pair (a, b), linked to `dispute`: what grouping reads of it."""
    return Case(id=cid, memory_id_a=a, memory_id_b=b, agent_a="earth-1", agent_b="mars-1", similarity=0.9,
                phase_diff=math.pi, created_at="2026-03-01T10:00:00.000000Z", dispute=dispute)


@st.composite
def linked_cases(draw):
    """Cases of several disputes, each linked to a smaller-id case as some agent saw it."""
    ids = sorted(draw(st.lists(st.text("0123456789abcdef", min_size=4, max_size=4), min_size=1, max_size=8,
                               unique=True)))
    return [case(cid, draw(st.sampled_from([None, *ids[:n + 1]]))) for n, cid in enumerate(ids)]


@given(linked_cases(), st.randoms(use_true_random=False))
def test_dispute_groups_are_the_same_in_any_order(cases, rnd):
    shuffled = list(cases)
    rnd.shuffle(shuffled)
    groups = grouping.groups(cases)
    assert grouping.groups(shuffled) == groups
    for cid, did in groups.items():
        members = [c for c, d in groups.items() if d == did]
        assert did == min(members) and did <= cid  # named by its smallest case, whoever holds it
        linked = next(c for c in cases if c.id == cid).dispute
        assert linked is None or groups[linked] == did


def _regroup_every_pair(cases, copies):
    """The reference: every pair of cases compared, in case-id order."""
    held, parent, changes = {c.id for c in cases}, dict(grouping.groups(cases)), {}

    def root(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    def sides(c):
        return copies.get(c.memory_id_a, {c.memory_id_a}), copies.get(c.memory_id_b, {c.memory_id_b})

    rows = sorted(cases, key=lambda c: c.id)
    for i, first in enumerate(rows):
        for second in rows[i + 1:]:
            (a, b), (c, d) = sides(first), sides(second)
            r1, r2 = root(first.id), root(second.id)
            if r1 != r2 and ((a & c and b & d) or (a & d and b & c)) and max(r1, r2) in held:
                parent[max(r1, r2)] = changes[max(r1, r2)] = min(r1, r2)
    return changes


@st.composite
def cases_with_copies(draw):
    """Open cases over a few memories, some linked already, and which memories this agent holds as copies."""
    memories = [f"m{i}" for i in range(draw(st.integers(2, 8)))]
    copies = {m: {m, *draw(st.lists(st.sampled_from(memories), max_size=3))}
              for m in draw(st.lists(st.sampled_from(memories), unique=True))}
    ids = sorted(draw(st.lists(st.text("0123456789abcdef", min_size=4, max_size=4), min_size=1, max_size=10,
                               unique=True)))
    cases = []
    for n, cid in enumerate(ids):
        a, b = draw(st.lists(st.sampled_from(memories), min_size=2, max_size=2, unique=True))
        cases.append(case(cid, draw(st.sampled_from([None, "0000", *ids[:n + 1]])), a, b))
    return cases, copies


@given(cases_with_copies(), st.randoms(use_true_random=False))
def test_regroup_links_as_comparing_every_pair_would(drawn, rnd):
    cases, copies = drawn
    rnd.shuffle(cases)
    assert grouping.regroup(cases, copies) == _regroup_every_pair(cases, copies)
