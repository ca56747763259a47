"""Exchange through a commons: push this agent's branch, pull its peers', and keep
the shared quarantine branch current around both.

`Exchange` is built from the parts it needs (repository, tables, index,
comparator, identity's id); the per-peer work is `pull.PeerPull`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Sequence

from .. import merge
from ..config import Settings
from ..embedding_model import EmbeddingModel
from ..errors import BadInput, CollectiveError, HistoryRewritten, NotFound, NotShared
from ..identity import Identity
from ..index.keeper import IndexKeeper
from ..model import events, validate_agent_id
from ..reports import PullReport, PushReport
from ..model.refs import MAIN_BRANCH, QUARANTINE_BRANCH, ROSTER_BRANCH, agent_of_working, working_branch
from ..peers import Peers
from ..promotion import Promotions
from ..quarantine.service import Quarantine
from ..roster.service import Rosters
from ..runtime.gc_pause import gc_paused
from ..runtime.progress import Progress
from ..store.tables import Tables
from ..upkeep import Upkeep
from .applied import applied
from .pull import PeerPull, PeerReport
from .push import push_branch
from .remotes import Remotes

if TYPE_CHECKING:
    from ..store.port import Repository

__all__ = ["Exchange", "PeerPull", "PeerReport", "Remotes"]


class Exchange:
    def __init__(self, repo: Repository, tables: Tables, remotes: Remotes, quarantine: Quarantine, *,
                 keeper: IndexKeeper, model: EmbeddingModel, peers: Peers, upkeep: Upkeep,
                 comparator: Callable[[], merge.Comparator], identity: Identity, agent_id: str, branch: str,
                 settings: Settings, promotions: Promotions, rosters: Rosters):
        self.repo = repo
        self.rosters = rosters
        self.promotions = promotions
        self.tables = tables
        self.remotes = remotes
        self.quarantine = quarantine
        self.keeper = keeper
        self.model = model
        self.peers = peers
        self.upkeep = upkeep
        self.comparator = comparator
        self.identity = identity
        self.agent_id = agent_id
        self.branch = branch
        self.settings = settings

    def push(self, remote: str | None = None) -> PushReport:
        """Push the working branch, then share the quarantine cases. `tampered` says what the
        commons held instead of this agent's branch, when another hand wrote it there."""
        remote = self.remotes.choose(remote)
        tampered = push_branch(self.repo, self.tables, remote, self.branch, author=self.agent_id,
                               public_key=self.identity.public_key)
        with self.repo.transaction():
            self.tables.outbox.add(events.pushed(self.branch, self.repo.head(self.branch), remote))
        pushed = {"remote": remote, "branch": self.branch, "head": self.repo.head(self.branch), "tampered": tampered}
        try:
            shared = self.quarantine.share_after("cases", pushed, remote)
        except NotShared as e:  # the cases stopped the push before the proposals went: none did
            e.result.setdefault("promotions", {"pushed": False})
            raise
        return self.promotions.share_after("promotions", shared, remote)

    def share_verdict(self, resolved: dict, remote: str) -> dict:
        """A verdict that made a memory (merged): the working branch goes out with the cases,
        so peers get the corrected statement. NotShared when the push failed."""
        try:
            pushed = self.push(remote)
        except CollectiveError as e:
            raise NotShared("verdict", e, {**resolved, "quarantine": {"pushed": False, "error": str(e)}}) from e
        return {**resolved, "quarantine": pushed["quarantine"]}

    def _check_peers(self, peers: Sequence[str], remote: str) -> None:
        """The peers a pull names, checked before it fetches: bad input writes nothing. A peer
        this agent has not seen on the remote yet is looked for alone (a fetch of a branch
        that is not there writes nothing)."""
        if isinstance(peers, str) or not isinstance(peers, Sequence):
            raise BadInput("peers", f"must be a list of agent ids, got {peers!r}")
        for peer in peers:
            if validate_agent_id(peer, "peer") == self.agent_id:
                raise BadInput("peer", f"{peer} is this agent; a pull takes its peers' memories")
        seen = self.repo.remote_branches()
        for peer in peers:
            if f"{remote}/{working_branch(peer)}" in seen:
                continue
            try:
                self.repo.fetch(remote, working_branch(peer))
            except NotFound:
                raise NotFound("peer", f"no branch {working_branch(peer)} on remote {remote!r}") from None

    def pull(self, remote: str | None = None, *, peers: Sequence[str] = (), dry_run: bool = False,
             comparator: merge.Comparator | None = None, progress: Progress | None = None) -> PullReport:
        """Fetch the commons, take its cases, merge every peer that moved, share the cases.

        `refused` names, per peer and for the shared cases, what was not taken and why."""
        remote = self.remotes.choose(remote)
        self._check_peers(peers, remote)
        with gc_paused():
            started = time.perf_counter()
            heads = self.repo.fetch(remote)
            fetch_s = time.perf_counter() - started
            available = {agent_of_working(b): h for b, h in heads.items()
                         if agent_of_working(b) is not None and b != self.branch}
            for peer in peers:
                if peer not in available:
                    raise NotFound("peer", f"no branch {peer}/working on remote {remote!r}")
            session = PeerPull(self.repo, self.tables, keeper=self.keeper, model=self.model, peers=self.peers,
                               upkeep=self.upkeep, comparator=comparator or self.comparator(),
                               refutations=self.quarantine.refutations,
                               identity=self.identity, agent_id=self.agent_id, settings=self.settings, remote=remote,
                               progress=progress)
            # the roster first: who may do what decides which of the rows below are taken
            roster = None if dry_run else self.rosters.take_from(remote)
            taken = None if dry_run else self.quarantine.take_from(remote)
            reports = []
            for peer in sorted(peers) if peers else sorted(available):
                try:
                    report = session.run(peer, available[peer], dry_run=dry_run)
                except HistoryRewritten as refusal:  # that peer is refused and named; the others are taken
                    report = PeerReport.rewritten(refusal)
                report.seconds["fetch"] = fetch_s
                reports.append(report)
            self.keeper.save()
            refused = {r.peer: r.refused for r in reports if r.refused}
            if roster and roster["refused"]:
                refused[ROSTER_BRANCH] = roster["refused"]
            if taken and taken["refused"]:
                refused[QUARANTINE_BRANCH] = taken["refused_cases"]
            promoted = None if dry_run else self.promotions.exchange(remote, fetched=True)
            if promoted and promoted["refused"]:
                refused.setdefault(QUARANTINE_BRANCH, {}).update(promoted["refused"])
            if promoted and promoted["main_refused"]:  # the commons' main, not followed
                refused[MAIN_BRANCH] = promoted["main_refused"]
            result: PullReport = {"remote": remote, "dry_run": bool(dry_run), "peers": [r.to_dict() for r in reports],
                                  "cases_taken": taken, "refused": refused, "promotions": promoted, "roster": roster,
                                  "cases_grouped": None, "quarantine": None, "dreams": None, "applied": None}
            if dry_run:
                return result
            result["applied"] = applied(result["peers"], taken, promoted, roster)
            result["cases_grouped"] = self.quarantine.regroup()
            return self.quarantine.share_after("pull", result, remote)
