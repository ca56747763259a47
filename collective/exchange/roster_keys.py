"""Letting go of what another key said under an agent's name, on a holder that follows a
roster (which keys are the agent's: roster/keys.py).

What a holder took under the agent's name before the roster named it, signed by none of
the agent's keys, was a squatter's: it is deleted, not retracted (a retraction is the
origin's signed word, and a changed row would travel to peers as a forged copy of the
real agent's), and the copies of other agents' memories absorbed into it are recalled
again. A dispute a side of which was let go closes (quarantine/closing.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..model import Memory, iso, utcnow
from ..roster.keys import keys_of, named_keys, reached, rotations_to, signed_by_any
from ..store.tables import Tables

__all__ = ["Superseded", "keys_of", "let_go", "rotations_to", "stray_memories", "superseded"]


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
    return [row["id"] for row in rows if not signed_by_any(Memory.from_row(row), found.keys)]


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
