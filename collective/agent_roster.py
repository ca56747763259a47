"""The Agent's verbs on the collective's roster (a part of the facade, kept apart for its size)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from . import provision, reviewer_keys
from .errors import BadInput
from .model import validate_agent_id
from .model.refs import peer_working
from .roster import service as roster_changes

if TYPE_CHECKING:
    from .config import Home
    from .roster.service import Rosters


class RosterVerbs:
    """Mixed into Agent, whose `rosters` (roster.service.Rosters), `home`, `tables`, `repo`,
    remotes and `_sharing_remote` these use."""

    rosters: Rosters
    home: Home

    def roster(self) -> dict:
        """The roster this agent follows: its collective, version, owners, agents (with their
        keys and whether they endorse), reviewers, endorsements needed and who signed it."""
        return self.rosters.show()

    def init_roster(self, collective: str, *, owners: Sequence[str], threshold: int | None = None,
                    endorsements: int = 2, remote: str | None = None) -> dict:
        """Version 1 of a collective's roster, owned (and signed) by these people, whose
        reviewer keys are in this home; shared on the commons, and pinned in this home's
        cmem.toml (`roster`)."""
        pinned = self.home.setting("roster")
        if pinned:  # its agents follow that one: a roster made here would be refused at every pull
            raise BadInput("collective", f"this home pins the roster {pinned}: its agents follow that one")
        named = [(name, reviewer_keys.load(self.home, name)) for name in owners]
        made = self.rosters.init(validate_agent_id(collective, "collective"), owners=named, threshold=threshold,
                                 endorsements=endorsements, remote=self._sharing_remote(remote))
        self.home.pin_roster(made["fingerprint"])  # the agents here know their roster: none taken on first sight
        return {**made, "pinned": True}

    def roster_add_agent(self, agent_id: str, *, key: str | None = None, endorses: bool = True,
                         by: Sequence[str] = (), remote: str | None = None) -> dict:
        """A new roster version naming this agent with its key (by default the key of the agent
        of that id in this home), signed by the owners `by` (default: every owner key here)."""
        key = roster_changes.member_key(key, provision.agent_public_key(self.home, validate_agent_id(agent_id)))
        return self.rosters.change(lambda r: roster_changes.with_agent(r, agent_id, key, endorses=endorses),
                                   signers=reviewer_keys.signers(self.home, by), remote=self._sharing_remote(remote))

    def roster_add_reviewer(self, name: str, *, key: str | None = None, by: Sequence[str] = (),
                            remote: str | None = None) -> dict:
        """A new roster version naming this reviewer (by default with the key in this home)."""
        key = roster_changes.member_key(key, reviewer_keys.public_key(self.home, name))
        return self.rosters.change(lambda r: roster_changes.with_reviewer(r, name, key),
                                   signers=reviewer_keys.signers(self.home, by), remote=self._sharing_remote(remote))

    def roster_remove(self, name: str, *, by: Sequence[str] = (), remote: str | None = None) -> dict:
        """A new roster version without this agent or reviewer."""
        return self.rosters.change(lambda r: roster_changes.without(r, name),
                                   signers=reviewer_keys.signers(self.home, by), remote=self._sharing_remote(remote))

    def published_key(self, agent_id: str, *, fetch: bool = False) -> str | None:
        """The key of an agent this one has not pulled yet: the roster's, where it follows
        one; else the key the agent's own branch shows on a commons, as last fetched (or
        fetched now, `fetch`); None when nowhere names it. A first sighting, as a pull's."""
        following = roster_changes.held(self.tables)
        if following is not None:
            return following.agent_key(agent_id)
        for remote in sorted(self.remotes()):
            if fetch:
                self.repo.fetch(remote)
            ref = peer_working(remote, validate_agent_id(agent_id))
            if ref in self.repo.remote_branches():
                return self.tables.agents.public_key(agent_id, as_of=ref)
        return None

