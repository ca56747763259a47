"""The roster as an agent keeps it: the versions it verified, taking new ones from the
commons, and making one (signed by owners whose keys are in this home) and sharing it.

The commons keeps every version on the `collective/roster` branch; each agent keeps, in
its own `roster` table, the versions it verified, in order (rules.follow), and so carries
them on its own branch, where its peers read them too (sources.py). Where an
agent holds a roster, the roster is the one answer to who may do what: whose verdicts
and decisions take effect (its reviewers), whose endorsements count and how many
promote (its endorsers), and which key each agent has (its agents).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import (BadInput, BranchContested, CollectiveError, NoCommonsYet, NonFastForward, NotFound,
                      StorageError)
from ..identity import Identity, valid_public_key
from ..model import iso, utcnow
from ..model.refs import MAIN_BRANCH, ROSTER_BRANCH, agent_of_working, tracking
from ..runtime.retry import retrying
from ..store.tables import Tables
from . import rules, sources
from .record import Member, Roster

if TYPE_CHECKING:
    from ..store.port import Repository

SHARE_ATTEMPTS = 4


def held(tables: Tables) -> Roster | None:
    """The latest roster version this agent verified, or None when it follows none."""
    try:
        row = tables.roster.latest()
    except StorageError:  # a database of a schema before the roster (read before its migration)
        return None
    return Roster.from_row(row) if row else None


def require_reviewer(tables: Tables, key: str, name: str) -> None:
    """BadInput unless a person signing with `key` may decide here: on an agent that follows a
    roster, only its reviewers may."""
    roster = held(tables)
    if roster is not None and key not in roster.reviewer_keys():
        raise BadInput("by", f"{name} is not a reviewer on the roster of {roster.collective}: an owner adds one "
                             "with `cmem collective add-reviewer`")


def reviewer_keys(tables: Tables) -> set[str]:
    """Whose verdicts and decisions take effect here: the roster's reviewers, or, on an agent
    that follows no roster, the reviewers its operator authorised (`cmem reviewers add`)."""
    roster = held(tables)
    return roster.reviewer_keys() if roster else tables.reviewers.keys()


class RosterRefused(CollectiveError):
    """A roster change this home cannot sign, or one the commons no longer takes."""


class Rosters:
    def __init__(self, repo: Repository, tables: Tables, *, agent_id: str,
                 pinned: Callable[[], str | None] = lambda: None):
        self.repo = repo
        self.tables = tables
        self.agent_id = agent_id
        self._pinned = pinned  # read each time: an operator may pin while the agent runs

    @property
    def pinned(self) -> str | None:
        """The fingerprint of the first version this agent's operator pinned (sources.fingerprint)."""
        return self._pinned()

    def held(self) -> Roster | None:
        return held(self.tables)

    def show(self) -> dict:
        roster = self.held()
        if roster is None:
            raise NotFound("roster", "this agent follows no roster (`cmem collective init`, or pull from a commons "
                                     "that has one)")
        return self._described(roster)

    def _described(self, roster: Roster) -> dict:
        """A version as `cmem collective show` prints it: with the fingerprint of the first
        version, which an operator compares out of band or pins (`cmem init --roster`)."""
        chain = self._chain()
        root = sources.fingerprint(chain[0]) if chain else None
        return {**roster.to_dict(), "fingerprint": root, "pinned": root is not None and root == self.pinned}

    # --- taking ------------------------------------------------------------------
    def take_from(self, remote: str) -> dict:
        """The versions that follow the one held, verified, from the commons' roster branch and
        from every agent's own branch there (sources.py), into this agent's branch (one commit
        when any); the commons' branch put back when it is missing, behind or forged. The
        caller fetched. Returns {"collective", "version", "taken", "refused": {reason:
        [versions]}, "ignored": {peer: reason}}, and "republished" when it was put back."""
        chain = self._chain()
        commons, unreadable = self._commons(remote)
        plan = sources.plan(chain, commons, self._peers(remote), pinned=self.pinned)
        refused = dict(plan.refused)
        if unreadable:
            refused[rules.UNREADABLE] = unreadable
        taken = plan.taken
        if taken:
            with self.repo.transaction():
                self.tables.roster.write([r.to_row() for r in taken])
                self.repo.commit(f"roster: take {taken[-1].collective} version "
                                 f"{taken[0].version}..{taken[-1].version}", author=self.agent_id)
        last = taken[-1] if taken else chain[-1] if chain else None
        report = {"collective": last.collective if last else None, "version": last.version if last else None,
                  "taken": len(taken), "refused": refused, "ignored": plan.ignored}
        if plan.republish is not None:  # the versions are signed: any agent holding them puts them back
            report["republished"] = self.share(remote)
        return report

    def _chain(self) -> list[Roster]:
        """Every version held, in order (none on a database from before the roster)."""
        try:
            return [Roster.from_row(row) for row in self.tables.roster.rows()]
        except StorageError:
            return []

    def _commons(self, remote: str) -> tuple[list[Roster] | None, list]:
        """The commons' versions (None: it has no roster branch) and the versions of rows there
        that are no roster. A fetch keeps a branch the commons lost, so it is asked again."""
        ref = tracking(remote, ROSTER_BRANCH)
        if ref not in self.repo.remote_branches() or not self.repo.remote_head(remote, ROSTER_BRANCH):
            return None, []
        return self._offered(ref)

    def _peers(self, remote: str) -> dict[str, list[Roster]]:
        """The versions each other agent's own branch carries, as last fetched from `remote`."""
        prefix = tracking(remote, "")
        out = {}
        for ref in self.repo.remote_branches():
            agent = agent_of_working(ref[len(prefix):]) if ref.startswith(prefix) else None
            if agent is not None and agent != self.agent_id:
                out[agent] = self._offered(ref)[0]
        return out

    def _offered(self, ref: str) -> tuple[list[Roster], list]:
        try:
            rows = self.tables.roster.rows(as_of=ref)
        except StorageError:
            return [], ["table"]
        offered, unreadable = [], []
        for row in rows:
            try:
                offered.append(Roster.from_row(row))
            except (ValueError, KeyError, TypeError):
                unreadable.append(row.get("version"))
        return offered, unreadable

    # --- making ------------------------------------------------------------------
    def init(self, collective: str, *, owners: Sequence[tuple[str, Identity]], threshold: int | None,
             endorsements: int, remote: str | None) -> dict:
        """Version 1, signed by every owner named (their keys are in this home), shared;
        `threshold` None: every owner signs each next version."""
        if self.held() is not None:
            raise BadInput("collective", f"this agent follows the roster of {self.held().collective} already")
        if remote is not None and self._fetched(remote):
            if tracking(remote, ROSTER_BRANCH) in self.repo.remote_branches():
                raise BadInput("collective", f"the commons {remote!r} has a roster already: pull to follow it")
        threshold = len(owners) if threshold is None else threshold
        _check_numbers(threshold, len(owners), endorsements)
        roster = Roster(collective=collective, version=1, threshold=threshold, endorsements=endorsements,
                        owners=tuple(Member(name, identity.public_key) for name, identity in owners),
                        issued_at=iso(utcnow()))
        return self._publish(rules.sign(roster, [identity for _, identity in owners]), remote)

    def change(self, edit: Callable[[Roster], Roster], *, signers: Sequence[Identity], remote: str | None) -> dict:
        """The next version: `edit` of the latest one, signed by `signers` (owners whose keys
        are in this home), who must be a threshold of the latest version's owners."""
        if remote is not None and self._fetched(remote):
            self.take_from(remote)
        current = self.held()
        if current is None:
            raise NotFound("roster", "this agent follows no roster: `cmem collective init` makes one")
        nxt = edit(current)
        nxt = replace(nxt, version=current.version + 1, issued_at=iso(utcnow()), signatures=())
        _check_numbers(nxt.threshold, len(nxt.owners), nxt.endorsements)
        owners = {m.key for m in current.owners}
        signing = [s for s in signers if s.public_key in owners]
        if len(signing) < current.threshold:
            raise BadInput("by", f"a new version of {current.collective}'s roster needs {current.threshold} owner "
                                 f"signature(s); the owner keys here give {len(signing)} (owners: "
                                 f"{', '.join(m.name for m in current.owners)})")
        signed = rules.sign(nxt, signing)
        reason = rules.problem(current, signed)
        if reason is not None:  # new owners with a threshold the keys here cannot meet
            raise BadInput("by", f"the new version would not verify ({reason}): sign it with more owners")
        return self._publish(signed, remote)

    def _fetched(self, remote: str) -> bool:
        """Fetch `remote`; False when there is no commons there yet (the share makes it)."""
        try:
            self.repo.fetch(remote)
        except NoCommonsYet:
            return False
        return True

    def _publish(self, roster: Roster, remote: str | None) -> dict:
        with self.repo.transaction():
            self.tables.roster.write([roster.to_row()])
            commit = self.repo.commit(f"roster: {roster.collective} version {roster.version}", author=self.agent_id)
        return {**self._described(roster), "commit": commit, "pushed": self.share(remote) if remote is not None else False}

    def share(self, remote: str) -> bool:
        """Put the versions held here on the commons where it lacks them, has no roster branch,
        or holds versions that do not follow them (sources.commons_state); a lost race tries
        again. Returns whether it pushed."""
        if self.held() is None:
            return False
        try:
            return retrying(lambda: self._share_once(remote), retry_on=NonFastForward, attempts=SHARE_ATTEMPTS)
        except NonFastForward:
            raise BranchContested(ROSTER_BRANCH, remote, SHARE_ATTEMPTS) from None

    def _share_once(self, remote: str) -> bool:
        ref = tracking(remote, ROSTER_BRANCH)
        head = self.repo.remote_head(remote, ROSTER_BRANCH) or None
        chain = self._chain()
        theirs = self._offered(ref)[0] if head is not None else None
        pinned = self.pinned is not None and sources.fingerprint(chain[0]) == self.pinned
        state = sources.commons_state(theirs, chain, pinned=pinned)
        if state is None:
            have = {r.version for r in theirs or ()}
            clash = [r.version for r in chain if r.version not in have]
            if clash:  # a fork its owners signed, or another first version: not this agent's to overrule
                raise RosterRefused(f"the commons holds another version {clash[0]} of the roster: pull, then "
                                    "make the change again")
            return False
        # appended to the commons' branch when it is only behind; else made again from ours
        self.repo.create_branch_at(ROSTER_BRANCH, ref if state == sources.BEHIND else MAIN_BRANCH)
        with self.repo.on_branch(ROSTER_BRANCH):
            self.repo.migrate(author=self.agent_id, now=iso(utcnow()))
            there = {r["version"]: r for r in self.tables.roster.rows()}
            ours = [r.to_row() for r in chain]
            with self.repo.transaction():
                for version in set(there) - {r["version"] for r in ours}:
                    self.repo.delete(self.tables.roster.name, {"version": version})
                self.tables.roster.write([r for r in ours if there.get(r["version"]) != r])
                self.repo.commit(f"roster: {chain[-1].collective} version {chain[-1].version} ({state} on the "
                                 "commons)", author=self.agent_id)
        self.repo.push(remote, ROSTER_BRANCH, expect=head or "", force=state == sources.FORGED)
        return True


def _check_numbers(threshold: int, owners: int, endorsements: int) -> None:
    if not owners:
        raise BadInput("owner", "a roster needs at least one owner (a person's key: `cmem reviewer init`)")
    if not 1 <= threshold <= owners:
        raise BadInput("threshold", f"must be within 1 and the number of owners ({owners}), got {threshold}")
    if endorsements < 1:
        raise BadInput("endorsements", f"must be at least 1, got {endorsements}")


def with_agent(roster: Roster, agent_id: str, key: str, *, endorses: bool) -> Roster:
    others = tuple(m for m in roster.agents if m.name != agent_id)
    return replace(roster, agents=tuple(sorted((*others, Member(agent_id, key, endorses)), key=lambda m: m.name)))


def with_reviewer(roster: Roster, name: str, key: str) -> Roster:
    others = tuple(m for m in roster.reviewers if m.name != name)
    return replace(roster, reviewers=tuple(sorted((*others, Member(name, key)), key=lambda m: m.name)))


def without(roster: Roster, name: str) -> Roster:
    """The roster without the agent or reviewer called `name`; BadInput when it names neither."""
    agents = tuple(m for m in roster.agents if m.name != name)
    reviewers = tuple(m for m in roster.reviewers if m.name != name)
    if len(agents) == len(roster.agents) and len(reviewers) == len(roster.reviewers):
        raise NotFound("name", f"{name!r} is neither an agent nor a reviewer on {roster.collective}'s roster")
    return replace(roster, agents=agents, reviewers=reviewers)


def member_key(given: str | None, found: str | None) -> str:
    """The key a roster names for a member: the one given, else the one found in this home."""
    key = given if given is not None else found
    if key is None:
        raise BadInput("key", "no such key in this home: give the public key with --key")
    if not valid_public_key(key):
        raise BadInput("key", "is not a base64 Ed25519 public key")
    return key


def pin_from(given: str) -> str:
    """The fingerprint an operator gives to pin a roster: the text itself, or a file holding it
    or `cmem collective show --json`'s output. BadInput when it is neither."""
    text = given.strip()
    path = Path(text).expanduser()
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            raise BadInput("roster", f"cannot read {path}: {e}") from e
        if text.startswith("{"):
            try:
                text = str(json.loads(text).get("fingerprint") or "")
            except (ValueError, AttributeError):
                raise BadInput("roster", f"{path} is not `cmem collective show --json` output") from None
    text = text.lower()
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise BadInput("roster", "is not a roster fingerprint (64 hex digits, as `cmem collective show` prints it) "
                                 "nor a file holding one")
    return text
