"""The consensus branch `main`: a promotion is one commit there, pushed as a
compare-and-swap on the commons' main, and every agent's main follows the commons'.

Nothing but `land` commits on main, and nothing but `land` and `follow` move it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..errors import BranchContested, CollectiveError, NonFastForward, StorageError
from ..model import Endorsement, Promotion, iso, utcnow
from ..model.refs import MAIN_BRANCH, tracking
from ..store.tables import Tables
from . import rules

if TYPE_CHECKING:
    from ..store.port import Repository

LAND_ATTEMPTS = 4


def commons_main(repo: Repository, remote: str) -> str:
    """The commons' main as last fetched, or "" when it has none."""
    return repo.remote_branches().get(tracking(remote, MAIN_BRANCH), "")


def holds_consensus(repo: Repository, ref: str) -> bool:
    """Whether `ref` holds a promotion. A Dolt server makes a commons with an empty main,
    without tables: that is no consensus yet."""
    try:
        return repo.count("promotions", as_of=ref) > 0
    except StorageError:
        return False


def follow(repo: Repository, remote: str) -> bool:
    """Bring the commons' consensus in: our main becomes the commons' main (the caller
    fetched). Returns whether it moved."""
    theirs = commons_main(repo, remote)
    if not theirs or repo.head(MAIN_BRANCH) == theirs or not holds_consensus(repo, tracking(remote, MAIN_BRANCH)):
        return False
    repo.create_branch_at(MAIN_BRANCH, tracking(remote, MAIN_BRANCH))
    return True


def on_main(tables: Tables, memory_id: str, ref: str = MAIN_BRANCH) -> bool:
    return tables.memories.get(memory_id, as_of=ref) is not None


def promoting_commits(repo: Repository, ref: str = MAIN_BRANCH) -> dict[str, str]:
    """memory id -> the commit on main that promoted it, from one walk of main's log."""
    found: dict[str, str] = {}
    for commit in repo.log(ref):
        memory_id = rules.promoted_id(commit.message)
        if memory_id is not None:
            found.setdefault(memory_id, commit.hash)
    return found


def land(repo: Repository, tables: Tables, remote: str, *, memory_row: dict, promotion: Promotion,
         endorsements: Sequence[Endorsement], reason: str, author: str) -> dict:
    """Promote one memory: one commit on main naming `reason`, pushed only if the commons'
    main is still where we built it (the caller fetched). A lost race fetches again; if
    the other agent promoted the same memory, that promotion stands and ours is dropped.

    Returns {"memory", "commit", "landed"}: landed is False when another agent's stood."""
    memory_id = memory_row["id"]
    for _ in range(LAND_ATTEMPTS):
        expect = commons_main(repo, remote)
        ref = tracking(remote, MAIN_BRANCH)
        if expect and holds_consensus(repo, ref) and on_main(tables, memory_id, ref):
            follow(repo, remote)
            return {"memory": memory_id, "commit": promoting_commits(repo).get(memory_id), "landed": False}
        try:
            return {"memory": memory_id, "landed": True,
                    "commit": land_once(repo, tables, remote, expect, memory_row=memory_row, promotion=promotion,
                                        endorsements=endorsements, reason=reason, author=author)}
        except NonFastForward:
            repo.fetch(remote)
    raise BranchContested(MAIN_BRANCH, remote, LAND_ATTEMPTS)


def land_once(repo: Repository, tables: Tables, remote: str, expect: str, *, memory_row: dict,
              promotion: Promotion, endorsements: Sequence[Endorsement], reason: str, author: str) -> str:
    """Build the promoting commit on `expect` (the commons' main; "" when it has none:
    then on our own main) and push it as a compare-and-swap. NonFastForward when the
    commons' main moved; our main is put back where it was whenever the push fails."""
    before = repo.head(MAIN_BRANCH)
    if expect:
        repo.create_branch_at(MAIN_BRANCH, tracking(remote, MAIN_BRANCH))
    try:
        with repo.on_branch(MAIN_BRANCH):
            repo.migrate(author=author, now=iso(utcnow()))  # a main made before promotions existed
            if not on_main(tables, memory_row["id"]):
                with repo.transaction():
                    # main holds the claim, not this holder's view of it: never absorbed, not disputed
                    tables.memories.write_rows([{**memory_row, "absorbed_into": None, "disputed": 0}])
                    tables.promotions.write([promotion])
                    tables.endorsements.write(list(endorsements))
                    repo.commit(rules.commit_message(memory_row["id"], reason), author=author)
        repo.push(remote, MAIN_BRANCH, expect=expect)
    except CollectiveError:  # lost the race, or the commons is away: our main holds only what it holds
        repo.create_branch_at(MAIN_BRANCH, before)
        raise
    return repo.head(MAIN_BRANCH)
