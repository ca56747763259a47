"""Where an agent learns its roster, and whether the commons' copy must be put back. Pure.

Two kinds of source offer roster versions: the commons' `collective/roster` branch, and
every agent's own branch, whose `roster` table carries the versions that agent follows.
Every version is signed by its owners, so it does not matter who carries it: the owners'
signatures decide (rules.follow). So the roster cannot vanish with one branch, and an
agent that learns a newer version from a peer's branch puts it on a commons that lacks it.

Which chain a newcomer (holding none) follows starts at one first version: the one its
operator pinned by fingerprint, else the commons' (first sight), else the one every
peer's branch agrees on; peers that disagree, with nothing pinned, leave it on none.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from . import rules
from .record import Roster

# why the commons' copy is to be put back
MISSING = "missing"  # no `collective/roster` there
BEHIND = "behind"    # it lacks versions this agent holds: they are appended
FORGED = "forged"    # it holds versions that do not follow this agent's chain: it is replaced


def fingerprint(first: Roster) -> str:
    """The roster's name for an operator to pin: SHA-256 of its first version as signed (its
    signatures aside, so a version signed again keeps it)."""
    return hashlib.sha256(first.claim()).hexdigest()


@dataclass
class Plan:
    taken: list[Roster] = field(default_factory=list)
    refused: dict[str, list[int]] = field(default_factory=dict)  # the commons' versions, by reason
    ignored: dict[str, str] = field(default_factory=dict)        # a peer's branch -> why its chain was not followed
    republish: str | None = None                                 # MISSING, BEHIND, FORGED: why to put it back


def plan(held: Sequence[Roster], commons: Sequence[Roster] | None, peers: Mapping[str, Sequence[Roster]], *,
         pinned: str | None) -> Plan:
    """What to take after `held` (every version held, in order) from the commons' versions
    (None: the commons has no roster branch) and each peer's, and what to report."""
    out = Plan()
    current = held[-1] if held else None
    if held and pinned and fingerprint(held[0]) != pinned:  # pinned after it followed another: stop there
        out.refused[rules.FINGERPRINT_MISMATCH] = [1]
        return out
    root = fingerprint(held[0]) if held else pinned or _first_sight(commons, peers, out)
    if root is None:
        return out

    def take(offered: Sequence[Roster]) -> str | None:
        nonlocal current
        if current is None and not any(r.version == 1 and fingerprint(r) == root for r in offered):
            return rules.FINGERPRINT_MISMATCH if any(r.version == 1 for r in offered) else rules.UNSIGNED
        got, reason = rules.follow(current, offered)
        out.taken += got
        current = got[-1] if got else current
        return reason

    if commons is not None and commons:
        reason = take(commons)
        if reason in (rules.ROLLED_BACK, rules.FORKED):
            out.refused[reason] = [held[-1].version]  # what the commons no longer offers as held
        elif reason is not None:  # the first version that did not follow
            out.refused[reason] = [(current.version if current else 0) + 1]
    elif held:  # the branch was there: a commons that lost it rolled it back
        out.refused[rules.ROLLED_BACK] = [held[-1].version]
    for peer in sorted(peers):
        if peers[peer]:
            reason = take(peers[peer])
            if reason not in (None, rules.ROLLED_BACK):  # a peer behind is no fault
                out.ignored[peer] = reason
    if current is not None:
        out.republish = commons_state(commons, [*held, *out.taken], pinned=root == pinned)
    return out


def _first_sight(commons: Sequence[Roster] | None, peers: Mapping[str, Sequence[Roster]], out: Plan) -> str | None:
    """The first version a newcomer with nothing pinned follows: the commons', else the one
    the peers' branches agree on (none when they name several: `roster_ambiguous`)."""
    def first(offered: Sequence[Roster] | None) -> str | None:
        v1 = next((r for r in offered or () if r.version == 1), None)
        return fingerprint(v1) if v1 is not None and rules.problem(None, v1) is None else None

    if first(commons) is not None:
        return first(commons)
    roots = {first(offered) for offered in peers.values()} - {None}
    if len(roots) > 1:
        out.refused[rules.AMBIGUOUS] = [1]
        return None
    return next(iter(roots), None)


def commons_state(commons: Sequence[Roster] | None, ours: Sequence[Roster], *, pinned: bool) -> str | None:
    """Why the commons' versions are to be put back to `ours` (a chain from version 1), or
    None: they are ours, a fork its owners signed (it stays, refused, for them to settle), or
    a chain from another first version while ours is not pinned (two agents that each took
    theirs on first sight would put theirs back in turn, forever)."""
    if commons is None:
        return MISSING
    mine = {r.version: r for r in ours}
    for theirs in sorted(commons, key=lambda r: r.version):
        held = mine.get(theirs.version)
        if held is None:  # past our last: taking stopped before it, so it does not follow
            return FORGED
        if held.claim() != theirs.claim():
            if theirs.version == 1:  # another first version: only an agent whose own is pinned overrules it
                return FORGED if pinned else None
            signed_fork = rules.problem(mine[theirs.version - 1], theirs) is None
            return None if signed_fork else FORGED
    return BEHIND if set(mine) - {r.version for r in commons} else None
