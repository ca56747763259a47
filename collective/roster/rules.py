"""What makes a roster version one to follow. Pure: the service reads the rows.

Learned from The Update Framework's root metadata: a version is signed by a threshold
of its owners; the next one by a threshold of the previous version's owners and of its
own; versions are taken one after another, and never backwards. The first version an
agent meets is taken on first sight (as a peer's key is) unless its operator pinned one
by fingerprint (sources.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..identity import Identity, verify
from .record import Roster

# why an offered version was not taken
UNSIGNED = "roster_unsigned"          # fewer owner signatures than its threshold asks
NOT_BY_OWNERS = "roster_not_by_owners"  # not signed by a threshold of the held version's owners
OTHER_COLLECTIVE = "roster_other_collective"
ROLLED_BACK = "roster_rolled_back"    # the commons offers no version as recent as the one held
FORKED = "roster_forked"              # a version of the same number that differs from the one held
UNREADABLE = "roster_unreadable"
FINGERPRINT_MISMATCH = "roster_fingerprint_mismatch"  # a chain whose first version is not the one pinned here
AMBIGUOUS = "roster_ambiguous"        # nothing pinned, no roster on the commons, peers carry different ones


def signed_count(roster: Roster, owners: Sequence) -> int:
    """How many distinct owners (of `owners`) signed this version."""
    claim = roster.claim()
    keys = {m.key for m in owners}
    return len({key for key, signature in roster.signatures if key in keys and verify(key, claim, signature)})


def sign(roster: Roster, signers: Sequence[Identity]) -> Roster:
    """The version with these people's signatures added (each once)."""
    held = dict(roster.signatures)
    for identity in signers:
        held.setdefault(identity.public_key, identity.sign(roster.claim()))
    return replace(roster, signatures=tuple(sorted(held.items())))


def problem(held: Roster | None, offered: Roster) -> str | None:
    """Why `offered` may not follow `held` (None: it may). With nothing held, a first version
    signed by a threshold of its own owners."""
    if signed_count(offered, offered.owners) < offered.threshold:
        return UNSIGNED
    if held is None:
        return None
    if offered.collective != held.collective:
        return OTHER_COLLECTIVE
    if signed_count(offered, held.owners) < held.threshold:
        return NOT_BY_OWNERS
    return None


def follow(held: Roster | None, offered: Sequence[Roster]) -> tuple[list[Roster], str | None]:
    """The versions to take after `held`, in order, and why the rest were not (None: all were).
    A chain stops at its first version that does not follow."""
    by_version = {r.version: r for r in offered}
    if held is not None:
        same = by_version.get(held.version)
        if same is not None and same.claim() != held.claim():
            return [], FORKED
        if not offered or max(by_version) < held.version:
            return [], ROLLED_BACK if offered else None
    taken: list[Roster] = []
    current = held
    version = held.version + 1 if held else min(by_version, default=1)
    if held is None and version != 1:
        return [], UNSIGNED  # a chain must start at its first version
    while version in by_version:
        reason = problem(current, by_version[version])
        if reason is not None:
            return taken, reason
        current = by_version[version]
        taken.append(current)
        version += 1
    return taken, None
