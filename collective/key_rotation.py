"""Rotating an agent's own key: the new key, signed by the old, published on its branch.

The new key is written beside the old one first (`ed25519.pem.next`, 0600), then
the rotation and the agent's new public key are committed, then the new file
replaces the old. A crash between the two leaves a `.next` file that `recover`
finishes (the database names its key) or discards (it does not).

Processes sharing the agent take turns through a lock file beside the key: a
second rotation waits for the first, then rotates from the key the first made,
and an agent opened meanwhile neither discards the `.next` of a rotation under
way nor keeps the key it replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from .errors import BadInput
from .identity import Identity, KeyFileError, fingerprint, rotation_claim
from .model import iso, utcnow
from .model.refs import working_branch
from .store.tables import Tables

if TYPE_CHECKING:
    from .store.port import Repository

NEXT_SUFFIX = ".next"
LOCK_SUFFIX = ".lock"


def rotate(repo: Repository, tables: Tables, identity: Identity, key_path: Path, *,
           agent_id: str) -> tuple[Identity, dict]:
    """Make a new key, sign it with the current one, publish the rotation; one commit."""
    if repo.active_branch() != working_branch(agent_id):  # where peers read the agent's key
        raise BadInput("branch", f"a key is rotated on {working_branch(agent_id)}, not {repo.active_branch()}")
    next_path = _next(key_path)
    with _turn(key_path):
        identity = _settle(tables, key_path, agent_id)  # another process may have rotated since we opened
        if _named(tables, agent_id) != identity.public_key:
            raise KeyFileError(f"{key_path} is not the key {agent_id}'s own row names; "
                               f"restore the key file before rotating")
        new = Identity.generate(next_path)
        now = iso(utcnow())
        row = {"agent_id": agent_id, "old_key": identity.public_key, "new_key": new.public_key, "rotated_at": now,
               "signature": identity.sign(rotation_claim(agent_id, identity.public_key, new.public_key, now))}
        try:
            with repo.transaction():
                tables.key_rotations.write([row])
                tables.agents.set_key(agent_id, new.public_key)
                head = repo.commit(f"key: rotate {fingerprint(identity.public_key)} -> "
                                   f"{fingerprint(new.public_key)}", author=agent_id)
        except BaseException:
            next_path.unlink(missing_ok=True)
            raise
        os.replace(next_path, key_path)
    return new, {"agent": agent_id, "old_fingerprint": fingerprint(row["old_key"]),
                 "new_fingerprint": fingerprint(row["new_key"]), "public_key": new.public_key, "commit": head}


def recover(tables: Tables, identity: Identity, key_path: Path, *, agent_id: str) -> Identity:
    """The key to use: `identity` (as loaded), unless a rotation was interrupted (finished or
    undone here) or another process rotated since it was loaded (its key is read again)."""
    if not _next(key_path).exists() and _named(tables, agent_id) == identity.public_key:
        return identity
    with _turn(key_path):
        return _settle(tables, key_path, agent_id)


def _settle(tables: Tables, key_path: Path, agent_id: str) -> Identity:
    """With the lock held: finish a rotation whose commit landed, discard one whose did not,
    and load the key file as it then is."""
    next_path = _next(key_path)
    if next_path.exists():
        try:
            pending = Identity.load(next_path)
        except KeyFileError:  # cut short while being written: the commit that would name it never came
            pending = None
        if pending is not None and _named(tables, agent_id) == pending.public_key:
            os.replace(next_path, key_path)
            return pending
        next_path.unlink()
    return Identity.load(key_path)


@contextlib.contextmanager
def _turn(key_path: Path) -> Iterator[None]:
    """Hold the agent's key lock (waiting for a rotation under way in another process)."""
    fd = os.open(key_path.with_name(key_path.name + LOCK_SUFFIX), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _named(tables: Tables, agent_id: str) -> str | None:
    """The key the agent's own row names where rotations commit (its working branch), whichever
    branch it is opened on."""
    return tables.agents.public_key(agent_id, as_of=working_branch(agent_id))


def _next(key_path: Path) -> Path:
    return key_path.with_name(key_path.name + NEXT_SUFFIX)
