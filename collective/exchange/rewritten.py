"""A peer's branch that no longer descends from the head taken last: rolled back, or put back.

A member with write access to the commons can append a commit to an honest agent's branch
there; a peer that pulls in that window takes only what verifies (the forged rows are
refused) but moves its watermark to the forged head. The agent's next push puts its branch
back (push.py, `branch_tampered`), and the branch then no longer descends from that
watermark. That is no rewritten history: the commits that went held nothing their origins
signed that the branch does not still hold. A branch rolled back to an older head of its
own is: the commits that went held signed rows the branch no longer offers, and taking
it would give older versions of what was taken.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..identity import verify
from ..model import Memory

if TYPE_CHECKING:
    from ..store.port import Repository
    from ..store.tables import Tables


def forgeries_gone(repo: Repository, tables: Tables, taken: str, head: str) -> tuple[str, list[str]] | None:
    """Where to read `head` from when the commits between it and `taken` that `head` lost
    held only rows no origin signed (or rows `head` still holds as signed): the commit the
    two meet at, and the memories those commits touched, to read again as `head` holds
    them (a forged edit of a memory refused at its first sight hid the real one). None
    when they held a signed row that `head` no longer offers: history rewritten."""
    base = repo.merge_base(taken, head)
    if base is None:
        return None
    keys: dict[str, list[str]] = {agent: [key] for agent, key in tables.agents.keys().items()}
    for row in tables.key_rotations.all():  # what an origin signed before a rotation stays its own
        keys.setdefault(row["agent_id"], []).append(row["old_key"])
    columns = Memory.columns()
    kept = {c.new["id"]: Memory.from_row(c.new) for c in repo.diff(base, head, "memories", columns=columns)
            if c.new is not None}
    touched = []
    for change in repo.diff(base, taken, "memories", columns=columns):
        touched.append((change.new or change.old)["id"])
        if change.new is None:
            continue  # a removal that went: the row is there again
        gone = Memory.from_row(change.new)
        still = kept.get(gone.id)
        if still is not None and (still.claim(), still.signature) == (gone.claim(), gone.signature):
            continue
        if any(verify(key, gone.claim(), gone.signature) for key in keys.get(gone.origin_agent, ())):
            return None
    return base, touched
