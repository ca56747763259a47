"""Which keys speak for an agent on a holder that follows a roster, and letting go of what
another key said under the agent's name.

The roster alone names agents and keys: every key a version held here named for the
agent, and the keys rotations lead to from those (each step signed by the key before
it), are the agent's. A rotation from any other key (a member's, to the real key) counts
for nothing, and a newcomer never learns a key from one. What a holder took under the
agent's name before the roster named it, signed by none of these keys, was a squatter's:
it is deleted, not retracted (a retraction is the origin's signed word, and a changed
row would travel to peers as a forged copy of the real agent's), and the copies of
other agents' memories absorbed into it are recalled again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ..identity import rotation_claim, verify
from ..model import Memory, iso, utcnow
from ..roster.record import Roster
from ..store.tables import Tables


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


@dataclass
class Superseded:
    """What a holder took under an agent's name that the roster's keys do not cover."""

    agent_id: str
    keys: set[str]               # the agent's keys, as the roster has them
    pinned_key: str | None       # the key held for it, when that is not one of them
    stray_rotations: list[str]   # old keys of rotations held for it that start at none of them


def superseded(tables: Tables, agent_id: str, listed: str, pinned: dict | None) -> Superseded | None:
    """None when the key held for the agent, and every rotation held for it, is the roster's
    (`listed` is the key its latest version names); else what is not."""
    held = tables.key_rotations.of(agent_id)
    keys = reached(named_keys(tables, agent_id) | {listed}, held)  # keys_of, with the rotations read once
    pinned_key = pinned["public_key"] if pinned is not None and pinned["public_key"] not in keys else None
    stray = sorted({r["old_key"] for r in held if r["old_key"] not in keys})
    if pinned_key is None and not stray:
        return None
    return Superseded(agent_id, keys, pinned_key, stray)


def stray_memories(tables: Tables, found: Superseded) -> list[str]:
    """The agent's memories held here that none of its keys signed."""
    rows = tables.memories.rows_where({"origin_agent": found.agent_id})
    return [row["id"] for row in rows if not _signed_by_any(Memory.from_row(row), found.keys)]


def let_go(tables: Tables, found: Superseded, stray: Sequence[str]) -> None:
    """Delete the `stray` memories (stray_memories) with their links; copies absorbed into
    them are recalled again; a key held for the agent that is not the roster's is forgotten
    (the next pull meets the agent anew), and so are rotations from keys the roster never
    named. The caller holds the transaction."""
    if stray:
        now, gone = iso(utcnow()), set(stray)
        for row in tables.memories.absorbed_into_any(stray):
            if row["id"] not in gone:
                tables.memories.set(row["id"], absorbed_into=None, updated_at=now)
        tables.links.remove_touching(stray)
        tables.memories.remove(stray)
    if found.pinned_key is not None:
        tables.agents.remove(found.agent_id)
    tables.key_rotations.remove(found.agent_id, found.stray_rotations)


def _signed_by_any(memory: Memory, keys: set[str]) -> bool:
    claim = memory.claim()
    return any(verify(key, claim, memory.signature) for key in keys)
