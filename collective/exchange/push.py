"""Pushing an agent's working branch to the commons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import CollectiveError, NonFastForward
from ..model.refs import tracking
from ..runtime.retry import retrying

if TYPE_CHECKING:
    from ..store.port import Repository

PUSH_ATTEMPTS = 4


class BranchContested(CollectiveError):
    """Our branch kept moving on the commons while we caught up: someone else writes it."""


def push_branch(repo: Repository, remote: str, branch: str, *, author: str) -> None:
    """Push `branch`; when the commons has moved on (the agent ran elsewhere), merge
    what is there (ours wins a clash) and try again, a few times."""
    try:
        retrying(lambda: repo.push(remote, branch), retry_on=NonFastForward, attempts=PUSH_ATTEMPTS,
                 before_retry=lambda _: _catch_up(repo, remote, branch, author=author))
    except NonFastForward:
        raise BranchContested(f"push of {branch} to {remote} still not a fast-forward after {PUSH_ATTEMPTS} "
                              "attempts; someone else writes this branch") from None


def _catch_up(repo: Repository, remote: str, branch: str, *, author: str) -> None:
    repo.fetch(remote)
    ref = tracking(remote, branch)
    with repo.transaction():
        conflicts = repo.merge(ref, message=f"merge {ref}", author=author)
        for table in sorted({c.table for c in conflicts}):
            repo.resolve_conflicts(table, "ours")
        if conflicts:
            repo.commit(f"merge {ref} (kept ours on {len(conflicts)} conflicts)", author=author)
