"""Disputes: quarantine cases grouped by claim. Pure: the callers read the rows and the copies.

A case is one disputed pair of rows; a dispute is one disagreement between two
claims, whatever copies of them the agents hold. Each case row records the
dispute it joined (`dispute`: the id of another case of the same disagreement)
once an agent sees, after a pull, that its sides are copies of another case's
sides (regroup). The groups are the connected cases of those links, and a dispute's
id is the smallest case id in its group: the same on every agent that holds the
same rows, whatever order they came in (rows join by the smallest link, see
cases.merge_cases).
"""

from __future__ import annotations

from typing import Container, Iterable, Mapping, Sequence

from ..model.case import Case
from ..model.enums import CLOSED, CaseStatus, Keep


def link_of(case: Case) -> str:
    """The case a row says it shares a dispute with (itself when none)."""
    return case.dispute or case.id


def groups(cases: Iterable[Case]) -> dict[str, str]:
    """case id -> dispute id (the smallest case id linked to it, directly or not)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    ids = []
    for case in cases:
        ids.append(case.id)
        a, b = root(case.id), root(link_of(case))
        if a != b:
            parent[max(a, b)] = min(a, b)
    return {cid: root(cid) for cid in ids}


def members(cases: Iterable[Case]) -> dict[str, list[Case]]:
    """dispute id -> its cases, oldest first."""
    rows = list(cases)
    of = groups(rows)
    out: dict[str, list[Case]] = {}
    for case in sorted(rows, key=lambda c: (c.created_at, c.id)):
        out.setdefault(of[case.id], []).append(case)
    return out


def regroup(cases: Sequence[Case], copies: Mapping[str, set[str]]) -> dict[str, str]:
    """The links to record so that cases whose sides hold copies of each other's sides share
    a dispute: {case id: dispute}, each set on the root (smallest id) of the larger group and
    naming the smaller root, so a link only ever names a smaller id and joins keep it.

    Pairs are taken in case-id order, and only pairs that share a memory are compared (an
    index from each memory to the cases holding a copy of it): a pull's cost grows with the
    cases that could join, not with the square of the open cases."""
    held = {c.id for c in cases}
    parent = dict(groups(cases))
    changes: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    rows = sorted(cases, key=lambda c: c.id)
    sides = [(copies.get(c.memory_id_a, {c.memory_id_a}), copies.get(c.memory_id_b, {c.memory_id_b})) for c in rows]
    holding: dict[str, list[int]] = {}  # memory id -> positions of the cases holding a copy of it
    for i, (a, b) in enumerate(sides):
        for memory_id in a | b:
            holding.setdefault(memory_id, []).append(i)
    for i, (a, b) in enumerate(sides):
        for j in sorted({j for memory_id in a | b for j in holding[memory_id] if j > i}):
            r1, r2 = root(rows[i].id), root(rows[j].id)
            if r1 == r2:
                continue
            c, d = sides[j]
            if not ((a & c and b & d) or (a & d and b & c)):
                continue
            low, high = min(r1, r2), max(r1, r2)
            if high not in held:  # its row is elsewhere: an agent holding it links it
                continue
            parent[high] = low
            changes[high] = low
    return changes


def orient(cases: Sequence[Case], copies: Mapping[str, set[str]]) -> tuple[dict[str, bool], set[str], set[str]]:
    """Which side of the dispute each case's memory_id_a stands on. The first case (the
    dispute's own) sets sides a and b; a case whose a is a copy of side b is flipped.
    Returns (case id -> flipped, ids on side a, ids on side b)."""
    first = cases[0]
    side_a = set(copies.get(first.memory_id_a, {first.memory_id_a}))
    side_b = set(copies.get(first.memory_id_b, {first.memory_id_b}))
    flipped: dict[str, bool] = {}
    pending = list(cases)
    while pending:
        progress = False
        for case in list(pending):
            a, b = case.pair
            if a in side_b or b in side_a:
                flipped[case.id] = True
            elif a in side_a or b in side_b:
                flipped[case.id] = False
            else:
                continue
            here, there = (side_b, side_a) if flipped[case.id] else (side_a, side_b)
            here |= copies.get(a, {a})
            there |= copies.get(b, {b})
            pending.remove(case)
            progress = True
        if not progress:  # linked by another agent's view of the copies: as it stands
            for case in pending:
                flipped[case.id] = False
                side_a.add(case.memory_id_a)
                side_b.add(case.memory_id_b)
            break
    return flipped, side_a, side_b


def status(cases: Sequence[Case], closed: Container[str] = ()) -> str:
    """closed when every case is (closing.py: a side retracted or let go); else, of the others,
    resolved when every one is; escalated when any open one is; else pending."""
    states = {c.status for c in cases if c.id not in closed}
    if not states:
        return CLOSED
    if states == {CaseStatus.RESOLVED}:
        return CaseStatus.RESOLVED
    return CaseStatus.ESCALATED if CaseStatus.ESCALATED in states else CaseStatus.PENDING


def side_keep(keep: str, flipped: bool) -> str:
    """The dispute's verdict as one case's keep: a and b swap on a flipped case."""
    if flipped and keep in (Keep.A, Keep.B):
        return Keep.B if keep == Keep.A else Keep.A
    return keep
