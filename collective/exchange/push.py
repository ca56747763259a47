"""Pushing an agent's working branch to the commons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import BranchContested, CollectiveError, NonFastForward
from ..identity import fingerprint, rotation_reaches
from ..model.refs import tracking
from ..runtime.retry import retrying
from ..store.tables import Tables

if TYPE_CHECKING:
    from ..store.port import Repository

PUSH_ATTEMPTS = 4


class AgentRecreated(CollectiveError):
    """The commons holds this agent's branch under another key, with no rotation from it
    to ours: the agent was made again with the same id. Merging would take in rows the
    old key signed, and peers would refuse the new key."""


def push_branch(repo: Repository, tables: Tables, remote: str, branch: str, *, author: str, public_key: str) -> None:
    """Push `branch`; when the commons has moved on (the agent ran elsewhere), merge
    what is there (ours wins a clash) and try again, a few times."""
    try:
        retrying(lambda: repo.push(remote, branch), retry_on=NonFastForward, attempts=PUSH_ATTEMPTS,
                 before_retry=lambda _: _catch_up(repo, tables, remote, branch, author=author, public_key=public_key))
    except NonFastForward:  # our branch kept moving on the commons while we caught up: someone else writes it
        raise BranchContested(branch, remote, PUSH_ATTEMPTS) from None


def _same_agent(tables: Tables, ref: str, agent_id: str, public_key: str) -> None:
    held = tables.agents.public_key(agent_id, as_of=ref)
    if held is None or held == public_key or rotation_reaches(held, public_key, tables.key_rotations.of(agent_id)):
        return
    raise AgentRecreated(
        f"the commons holds {ref.split('/', 1)[1]} under another key ({fingerprint(held)}, ours "
        f"{fingerprint(public_key)}) and no rotation leads from it to ours: {agent_id} was created again with "
        "the same id. Restore its old key and database, or use a new agent id; peers refuse a key that changes "
        "without `cmem key rotate`")


def _catch_up(repo: Repository, tables: Tables, remote: str, branch: str, *, author: str, public_key: str) -> None:
    repo.fetch(remote)
    ref = tracking(remote, branch)
    _same_agent(tables, ref, author, public_key)
    with repo.transaction():
        conflicts = repo.merge(ref, message=f"merge {ref}", author=author)
        for table in sorted({c.table for c in conflicts}):
            repo.resolve_conflicts(table, "ours")
        if conflicts:
            repo.commit(f"merge {ref} (kept ours on {len(conflicts)} conflicts)", author=author)
