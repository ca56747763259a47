"""Rotating an agent's own key: the new key, signed by the old, published on its branch.

The new key is written beside the old one first (`ed25519.pem.next`, 0600), then
the rotation and the agent's new public key are committed, then the new file
replaces the old. A crash between the two leaves a `.next` file that `recover`
finishes (the database names its key) or discards (it does not).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .identity import Identity, fingerprint, rotation_claim
from .model import iso, utcnow
from .store.tables import Tables

if TYPE_CHECKING:
    from .store.port import Repository

NEXT_SUFFIX = ".next"


def rotate(repo: Repository, tables: Tables, identity: Identity, key_path: Path, *,
           agent_id: str) -> tuple[Identity, dict]:
    """Make a new key, sign it with the old one, publish the rotation; one commit."""
    next_path = key_path.with_name(key_path.name + NEXT_SUFFIX)
    next_path.unlink(missing_ok=True)
    new = Identity.generate(next_path)
    now = iso(utcnow())
    row = {"agent_id": agent_id, "old_key": identity.public_key, "new_key": new.public_key, "rotated_at": now,
           "signature": identity.sign(rotation_claim(agent_id, identity.public_key, new.public_key, now))}
    try:
        with repo.transaction():
            tables.key_rotations.write([row])
            tables.agents.set_key(agent_id, new.public_key)
            head = repo.commit(f"key: rotate {fingerprint(identity.public_key)} -> {fingerprint(new.public_key)}",
                               author=agent_id)
    except BaseException:
        next_path.unlink(missing_ok=True)
        raise
    os.replace(next_path, key_path)
    return new, {"agent": agent_id, "old_fingerprint": fingerprint(row["old_key"]),
                 "new_fingerprint": fingerprint(row["new_key"]), "public_key": new.public_key, "commit": head}


def recover(tables: Tables, identity: Identity, key_path: Path, *, agent_id: str) -> Identity:
    """Finish or undo a rotation a crash interrupted; the identity to use."""
    next_path = key_path.with_name(key_path.name + NEXT_SUFFIX)
    if not next_path.exists():
        return identity
    pending = Identity.load(next_path)
    if tables.agents.public_key(agent_id) == pending.public_key:
        os.replace(next_path, key_path)
        return pending
    next_path.unlink()
    return identity
