"""The consensus branch `main`: a promotion is one commit there, pushed as a
compare-and-swap on the commons' main, and every agent's main follows the commons'
once every commit on the way checks (`follow`).

Nothing but `land` commits on main, and nothing but `land` and `follow` move it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

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


# why the commons' main was not followed
MAIN_ROLLED_BACK = "main_rolled_back"  # it went back to an ancestor of ours (ours is put back on it)
MAIN_FORKED = "main_forked"            # it no longer descends from ours
UNSIGNED_MEMORY = "unsigned_memory"    # a memory on it its origin did not sign
UNPROMOTED_MEMORY = "unpromoted_memory"  # a memory on it with no signed proposal for it
NOT_DUE = "not_due"                    # a proposal on it neither approved by a reviewer here nor endorsed enough
MAIN_REWRITTEN = "main_rewritten"      # a commit on it changed or removed a memory main held (landing only adds)


@dataclass(frozen=True)
class Authority:
    """Who may promote, as this agent sees it: the reviewers whose decisions count, and the
    endorsers (None: any agent but the origin) and how many of them promote."""

    reviewer_keys: set[str]
    endorsers: set[str] | None
    needed: int


def follow(repo: Repository, tables: Tables, remote: str, *, key_of: Callable[[str], Sequence[str]],
           authority: Authority | None) -> tuple[bool, dict[str, list[str]]]:
    """Bring the commons' consensus in (the caller fetched): our main becomes the commons'
    main when it descends from ours and every memory it adds there was promoted as the rules
    say (whether each was due only by `authority`, the roster's: an agent that follows none
    checks the signatures alone). Returns whether it moved, and why not ({reason: [memory
    ids or the head]})."""
    theirs = commons_main(repo, remote)
    ref = tracking(remote, MAIN_BRANCH)
    ours = repo.head(MAIN_BRANCH)
    if not theirs or ours == theirs:
        return False, {}
    theirs_hold, ours_hold = holds_consensus(repo, ref), holds_consensus(repo, MAIN_BRANCH)
    if not theirs_hold and not ours_hold:
        # no consensus yet; a main holding memories without a promotion is a forgery
        try:
            return False, unverified(tables, ref, key_of=key_of, authority=authority)
        except StorageError:  # a commons' first, empty main
            return False, {}
    if ours_hold and not (theirs_hold and repo.is_ancestor(ours, theirs)):
        if theirs_hold and not repo.is_ancestor(theirs, ours):
            return False, {MAIN_FORKED: [theirs]}
        with contextlib.suppress(CollectiveError):  # any agent holding the consensus puts it back
            repo.push(remote, MAIN_BRANCH, expect=theirs)
        return False, {MAIN_ROLLED_BACK: [theirs]}
    refused: dict[str, list[str]] = {}
    for parent, commit in new_commits(repo, ours if ours_hold else None, theirs):
        for reason, ids in verified_commit(repo, tables, parent, commit, key_of=key_of, authority=authority).items():
            refused.setdefault(reason, []).extend(i for i in ids if i not in refused.get(reason, ()))
    if refused:
        return False, refused
    repo.create_branch_at(MAIN_BRANCH, ref)
    return True, {}


def new_commits(repo: Repository, ours: str | None, theirs: str) -> list[tuple[str | None, str]]:
    """(parent, commit) for each commit `theirs` holds after `ours` (all of them without it),
    oldest first: main grows one landing commit at a time, so its log is one line."""
    found = []
    for commit in repo.log(theirs):
        if commit.hash == ours:
            break
        found.append(commit.hash)
    found.reverse()
    return list(zip([ours, *found[:-1]], found))


def verified_commit(repo: Repository, tables: Tables, parent: str | None, commit: str, *,
                    key_of: Callable[[str], Sequence[str]], authority: Authority | None) -> dict[str, list[str]]:
    """What one commit of a main does wrong, by reason: a memory it adds not promoted as the
    rules say (`unverified`), or one main held that it changes or removes. A commit that adds
    a forged row and one that takes it out again are each refused: main is followed only
    when every commit on the way holds."""
    try:
        changes = list(repo.diff(parent, commit, "memories")) if parent else None
    except StorageError:  # no memories table on a side (a commons' first, empty main)
        changes = None
    if changes is None:  # every row the commit holds is checked
        try:
            return unverified(tables, commit, key_of=key_of, authority=authority)
        except StorageError:
            return {}
    added, rewritten = set(), []
    for change in changes:
        if change.kind == "added":
            added.add(change.new["id"])
        elif change.kind == "removed" or _changed(change.old, change.new):
            rewritten.append((change.old or change.new)["id"])
    refused = unverified(tables, commit, key_of=key_of, authority=authority, only=added) if added else {}
    if rewritten:
        refused[MAIN_REWRITTEN] = sorted(rewritten)
    return refused


def _changed(old: dict, new: dict) -> bool:
    """Whether a row's values changed, read in the columns both sides have (a migration that
    adds a column changes no memory)."""
    return any(old[column] != new[column] for column in old.keys() & new.keys())


def unverified(tables: Tables, ref: str, *, key_of: Callable[[str], Sequence[str]], authority: Authority | None,
               only: set[str] | None = None) -> dict[str, list[str]]:
    """The memories `ref` (a main) holds (or, given `only`, those of them) that were not
    promoted as the rules say, by reason: each must be signed by its origin and carry a
    signed proposal, due by an authorised reviewer's approval or enough endorsements by
    allowed endorsers."""
    refused: dict[str, list[str]] = {}
    rows = tables.memories.rows(as_of=ref) if only is None else tables.memories.rows_by_id(sorted(only), as_of=ref)
    promotions = tables.promotions.by_id(as_of=ref)
    for row in rows:
        memory_id = row["id"]
        promotion = promotions.get(memory_id)
        checked = rules.check([promotion] if promotion else [], tables.endorsements.of(memory_id, as_of=ref), key_of,
                              reviewer_keys=authority.reviewer_keys if authority else None)
        if not rules.signed_by_origin(row, key_of):
            reason = UNSIGNED_MEMORY
        elif not checked.promotions or checked.promotions[0].origin_agent != row["origin_agent"]:
            reason = UNPROMOTED_MEMORY
        elif authority and not rules.standing(checked.promotions[0], checked.endorsements,
                                              authorised=authority.reviewer_keys, on_main=False,
                                              endorsers_allowed=authority.endorsers, needed=authority.needed).reason:
            reason = NOT_DUE
        else:
            continue
        refused.setdefault(reason, []).append(memory_id)
    return refused


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
         endorsements: Sequence[Endorsement], reason: str, author: str,
         follow: Callable[[], tuple[bool, dict[str, list[str]]]]) -> dict:
    """Promote one memory: one commit on main naming `reason`, pushed only if the commons'
    main is still where we built it (the caller fetched). A lost race fetches again; if
    the other agent promoted the same memory, that promotion stands and ours is dropped.
    A commons' main that moved past ours is built on only once `follow` took it: every
    commit on the way checked.

    Returns {"memory", "commit", "landed"}: landed is False when another agent's stood,
    or (with "main_refused", follow's reasons) when the commons' main was not followed."""
    memory_id = memory_row["id"]
    for _ in range(LAND_ATTEMPTS):
        expect = commons_main(repo, remote)
        if expect and expect != repo.head(MAIN_BRANCH):
            _, refused = follow()
            if refused:  # it moved to a main we do not follow since the caller's check: nothing lands on it
                return {"memory": memory_id, "commit": None, "landed": False, "main_refused": refused}
        ref = tracking(remote, MAIN_BRANCH)
        if expect and holds_consensus(repo, ref) and on_main(tables, memory_id, ref):
            repo.create_branch_at(MAIN_BRANCH, ref)  # the other agent's promotion of it stands
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
