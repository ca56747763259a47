"""Which keys speak for an agent on a holder that follows a roster.

The roster alone names agents and keys: every key a version held here named for the
agent, and the keys rotations lead to from those (each step signed by the key before
it), are the agent's. A rotation from any other key (a member's, to the real key) counts
for nothing, and a newcomer never learns a key from one.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..identity import rotation_claim, verify
from ..model import Memory
from ..store.tables import Tables
from .record import Roster


def named_keys(tables: Tables, agent_id: str) -> set[str]:
    """Every key a roster version held here named for the agent (the latest one's among them)."""
    keys = set()
    for row in tables.roster.rows():
        try:
            key = Roster.from_row(row).agent_key(agent_id)
        except (ValueError, KeyError, TypeError):  # only verified versions are held; a bad row names nothing
            continue
        if key is not None:
            keys.add(key)
    return keys


def keys_of(tables: Tables, agent_id: str, listed: str) -> set[str]:
    """The agent's keys by the roster: those its versions named (`listed`, the latest's,
    among them) and those rotations held here lead to from them."""
    return reached(named_keys(tables, agent_id) | {listed}, tables.key_rotations.of(agent_id))


def reached(anchors: Iterable[str], rotations: Sequence[dict]) -> set[str]:
    """The anchors and every key a chain of rotations leads to from them, each step signed
    by the key before it."""
    keys = set(anchors)
    frontier = list(keys)
    while frontier:
        old = frontier.pop()
        for step in rotations:
            if step["old_key"] == old and step["new_key"] not in keys and _signed(step):
                keys.add(step["new_key"])
                frontier.append(step["new_key"])
    return keys


def rotations_to(anchors: set[str], target: str, rotations: Sequence[dict]) -> list[dict]:
    """The rotations on a chain from one of the anchors (keys the roster named, or that
    rotations from them reached) to `target`, the key the roster names now."""
    reach = reached(anchors, rotations)
    return [r for r in rotations
            if r["old_key"] in reach and _signed(r) and target in reached([r["new_key"]], rotations)]


def _signed(step: dict) -> bool:
    claim = rotation_claim(step["agent_id"], step["old_key"], step["new_key"], step["rotated_at"])
    return verify(step["old_key"], claim, step["signature"])


def signed_by_named_key(tables: Tables, memory: Memory, roster: Roster) -> bool:
    """Whether one of the keys `roster` (the version followed) and those before it name for
    the memory's origin signed it: False for an origin it does not name."""
    listed = roster.agent_key(memory.origin_agent)
    return listed is not None and signed_by_any(memory, keys_of(tables, memory.origin_agent, listed))


def signed_by_any(memory: Memory, keys: set[str]) -> bool:
    claim = memory.claim()
    return any(verify(key, claim, memory.signature) for key in keys)
