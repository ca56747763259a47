"""Pushing an agent's working branch to the commons.

Only the agent writes its own branch, so the commons' copy is never merged in: it
must be our head or one of its ancestors. Anything else there was written by another
hand (any agent that can push can write any branch); it is refused, reported as
`branch_tampered`, and our branch is put back in its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import BranchContested, CollectiveError, NonFastForward, StorageError
from ..identity import fingerprint, rotation_reaches
from ..model.refs import tracking
from ..reports import BranchTampered
from ..roster import service as roster
from ..store.tables import Tables

if TYPE_CHECKING:
    from ..store.port import Repository

PUSH_ATTEMPTS = 4
TAMPERED = "branch_tampered"


class AgentRecreated(CollectiveError):
    """The commons holds this agent's branch under another key, with no rotation from it
    to ours, and with no history in common with ours: the agent was made again with the
    same id. Overwriting it would erase the old agent's branch, and peers would refuse
    the new key. Not raised where the roster held here names our key: that branch was a
    squatter's, and it is replaced as a tampered one."""


def push_branch(repo: Repository, tables: Tables, remote: str, branch: str, *, author: str,
                public_key: str) -> BranchTampered | None:
    """Push `branch`. None when the commons held our head or an ancestor of it; else what
    it held instead, refused, after our branch was put back there (a compare-and-swap
    with force). BranchContested when the commons' copy kept moving every attempt."""
    for _ in range(PUSH_ATTEMPTS):
        try:
            repo.push(remote, branch)
            return None
        except NonFastForward:
            pass
        theirs = repo.remote_head(remote, branch)
        ours = repo.head(branch)
        if not theirs or repo.is_ancestor(theirs, ours):
            continue  # it moved between our push and the fetch (another process of ours): try again
        if not _grew_from_ours(repo, tables, theirs, ours, author):
            _same_agent(tables, tracking(remote, branch), author, public_key)
        try:
            repo.push(remote, branch, expect=theirs, force=True)
        except NonFastForward:
            continue
        return {"reason": TAMPERED, "branch": branch, "found": theirs, "restored": ours}
    raise BranchContested(branch, remote, PUSH_ATTEMPTS)


def _grew_from_ours(repo: Repository, tables: Tables, theirs: str, ours: str, agent_id: str) -> bool:
    """Whether the commons' copy grew from a commit of this agent: one that holds its own
    row. Databases made apart may share the engine's first commits, never that one."""
    base = repo.merge_base(theirs, ours)
    if base is None:
        return False
    try:
        return tables.agents.public_key(agent_id, as_of=base) is not None
    except StorageError:  # the engine's first commit, before any table
        return False


def _same_agent(tables: Tables, ref: str, agent_id: str, public_key: str) -> None:
    held = tables.agents.public_key(agent_id, as_of=ref)
    if held is None or held == public_key or rotation_reaches(held, public_key, tables.key_rotations.of(agent_id)):
        return
    following = roster.held(tables)
    if following is not None and following.agent_key(agent_id) == public_key:
        return  # the roster names our key: a branch there under another one was never this agent's
    raise AgentRecreated(
        f"the commons holds {ref.split('/', 1)[1]} under another key ({fingerprint(held)}, ours "
        f"{fingerprint(public_key)}) and no rotation leads from it to ours: {agent_id} was created again with "
        "the same id. Restore its old key and database, or use a new agent id; peers refuse a key that changes "
        "without `cmem key rotate`. Where the collective's roster names this key, pull (to take the roster) "
        "and push again")
