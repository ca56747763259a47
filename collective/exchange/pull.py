"""Pulling one peer: what it learned since the last pull, merged into this agent.

A straight line: read the peer's memory rows changed since its watermark (a
Dolt diff on the fetched branch), verify each signature against the key the
peer registered, find local candidates in the ANN index, judge the pairs,
plan the merge (merge.plan, pure) and apply it in one transaction and one
commit naming the peer and its head. Peer branches are never Dolt-merged
into ours: the merge is ours to decide, row by row.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from .. import merge
from ..core import trust
from ..config import Settings
from ..embedding_model import EmbeddingModel
from ..errors import HistoryRewritten
from ..identity import Identity, fingerprint, rotation_reaches, verify, verify_many
from ..index.keeper import IndexKeeper
from ..judge import cache as kept_analyses
from ..model import Case, Memory, events, iso, utcnow
from ..model.enums import CaseStatus, PeerStatus
from ..model.refs import agent_of_working, peer_working, working_branch
from ..reports import PeerPullReport
from ..peers import NOT_ON_ROSTER, Peers
from ..quarantine import verdicts
from ..quarantine.refutation import Refutations
from ..quarantine.signing import sign_cases
from ..roster import service as roster
from ..runtime import parallel
from ..runtime.progress import Progress
from ..store.tables import Tables
from ..upkeep import Upkeep
from ..merge.judging import plan_pull
from . import rewritten, roster_keys
from .arrivals import Arrivals, sort_out

if TYPE_CHECKING:
    from ..store.port import Repository


@dataclass
class PeerReport:
    peer: str
    head: str
    status: PeerStatus = PeerStatus.MERGED
    commit: str | None = None
    summary: dict = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    pairs: list[dict] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    key: dict[str, str] = field(default_factory=dict)  # first_sighting, rotated, roster, refused, let_go: a fingerprint
    let_go: int = 0  # its memories held here that a key the roster does not name signed, let go
    history: dict[str, str] = field(default_factory=dict)  # taken and offered (and put_back_from), when rewritten

    @classmethod
    def rewritten(cls, refusal: HistoryRewritten) -> PeerReport:
        """A peer refused because its branch no longer descends from what was taken."""
        return cls(refusal.peer, refusal.offered, PeerStatus.REFUSED, refused={"history_rewritten": 1},
                   history={"taken": refusal.taken, "offered": refusal.offered})

    def to_dict(self) -> PeerPullReport:
        return {"peer": self.peer, "head": self.head, "status": self.status, "commit": self.commit,
                "summary": self.summary, "refused": self.refused, "pairs": self.pairs, "key": self.key,
                "history": self.history, "let_go": self.let_go,
                "seconds": {k: round(v, 4) for k, v in self.seconds.items()}}


class PeerPull:
    """Pulls of one agent from one remote, peer by peer."""

    def __init__(self, repo: Repository, tables: Tables, *, keeper: IndexKeeper, model: EmbeddingModel, peers: Peers,
                 upkeep: Upkeep, comparator: merge.Comparator, refutations: Refutations, identity: Identity,
                 agent_id: str, settings: Settings, remote: str, progress: Progress | None = None):
        self.repo, self.tables, self.keeper, self.model, self.peers = repo, tables, keeper, model, peers
        self.upkeep, self.comparator, self.refutations, self.identity = upkeep, comparator, refutations, identity
        self.agent_id, self.settings, self.remote, self.progress = agent_id, settings, remote, progress
        self._cases: dict[str, Case] | None = None

    def run(self, peer: str, head: str, *, dry_run: bool) -> PeerReport:
        """Take what `peer` learned up to `head`. HistoryRewritten, with nothing written,
        when `head` does not descend from the head taken last."""
        report = PeerReport(peer, head)
        ref = peer_working(self.remote, peer)
        theirs = self.tables.agents.get(peer, as_of=ref)
        if theirs is None:
            report.status, report.refused = PeerStatus.REFUSED, {"no_agent_row": 1}
            return report
        rotations, pinned = self._key_check(peer, ref, self.tables.agents.get(peer), theirs, report, dry_run=dry_run)
        if report.status == PeerStatus.REFUSED:
            return report
        watermark = pinned["last_synced_commit"] if pinned else None
        if watermark == head:
            report.status = PeerStatus.UNCHANGED
            return report
        again: list[str] = []  # memories to read again as `head` holds them
        if watermark and not self.repo.is_ancestor(watermark, head):
            # a rolled-back branch would offer older versions of what was taken: history never
            # goes back; a branch put back after a forgery only drops what was refused
            put_back = rewritten.forgeries_gone(self.repo, self.tables, watermark, head)
            if put_back is None:
                raise HistoryRewritten(peer, watermark, head)
            report.history = {"taken": watermark, "offered": head, "put_back_from": put_back[0]}
            watermark, again = put_back
        clock = time.perf_counter()
        self._report(f"{peer}: read", 0, 1)
        rows = self._changed_rows(watermark, head, again)
        self._report(f"{peer}: read", 1, 1)
        report.seconds["diff"] = time.perf_counter() - clock
        if watermark and not rows and not rotations:
            # Only the peer's own bookkeeping moved (its pulls of others): nothing to take, and
            # no commit, or two agents pulling each other would move each other's heads forever.
            report.status = PeerStatus.UNCHANGED
            return report
        clock = time.perf_counter()
        planned, read, already_read = self._classify(peer, head, theirs["public_key"], rows, report, rotations)
        report.seconds["classify"] = time.perf_counter() - clock  # verify ran beside it
        if dry_run:
            report.pairs = [p.to_dict() for p in planned.pairs]
            report.status = PeerStatus.PLANNED
            return report
        if pinned and planned.changes_nothing() and not rotations:
            # The rows moved by the peer's own merges (its copies' amplitudes, dispute flags)
            # and change nothing here: no commit, or agents pulling each other would move each
            # other's heads every round. The watermark stays; the next diff reads these again.
            report.status = PeerStatus.UNCHANGED
            return report
        clock = time.perf_counter()
        self._report(f"{peer}: write", 0, 1)
        self._apply(planned, _watermark_row(peer, head, theirs, pinned, iso(utcnow())), read - already_read, report,
                    rotations)
        self._report(f"{peer}: write", 1, 1)
        report.seconds["apply"] = time.perf_counter() - clock
        return report

    def _key_check(self, peer: str, ref: str, pinned: dict | None, theirs: dict, report: PeerReport, *,
                   dry_run: bool) -> tuple[list[dict], dict | None]:
        """Whether the key the peer shows is one we may take. On a roster: the key it names,
        and nothing of an agent it does not name. Else the one we hold, one a signed
        rotation leads to from it, or (first sighting) whatever it shows, said so. A change
        without such a rotation is refused and kept for a person to decide. Returns the
        rotations to remember (their old keys still verify what they signed) and the peer's
        row as held after the check."""
        shown = theirs["public_key"]
        rotations = self.tables.key_rotations.of(peer, as_of=ref)
        following = roster.held(self.tables)
        if following is not None:  # the roster alone names agents and keys
            return self._roster_check(peer, following.agent_key(peer), pinned, shown, rotations, report,
                                      dry_run=dry_run)
        if pinned is None:
            witness = None if self.peers.key_accepted(peer, shown) else self._other_key_held(peer, shown, rotations)
            if witness is None:
                report.key = {"first_sighting": fingerprint(shown)}
                return [r for r in rotations if rotation_reaches(r["old_key"], shown, rotations)], pinned
            reason = "key_disputed"  # a peer of ours holds another key for it: the collective disagrees
        elif pinned["public_key"] == shown:
            return [], pinned
        elif rotation_reaches(pinned["public_key"], shown, rotations):
            report.key = {"rotated": fingerprint(shown)}
            return rotations, pinned
        else:
            reason = "key_changed"
        rejected = self.peers.key_rejected(peer, shown)
        report.status = PeerStatus.REFUSED
        report.refused = {"key_rejected" if rejected else reason: 1}
        report.key = {"refused": fingerprint(shown)}
        if not dry_run and not rejected:
            with self.repo.transaction():
                if self.peers.note_key_change(peer, shown):
                    self.repo.commit(f"agents: refuse key {fingerprint(shown)} of {peer} (no signed rotation)",
                                     author=self.agent_id)
        return [], pinned

    def _roster_check(self, peer: str, listed: str | None, pinned: dict | None, shown: str, rotations: list[dict],
                      report: PeerReport, *, dry_run: bool) -> tuple[list[dict], dict | None]:
        """The key check on a roster. An agent it does not name is held: nothing of it is
        taken until a version names it. One it names must show the key named; what was
        taken under its name and signed by another key is let go first, and a rotation
        counts only on a chain from a key the roster named to the one it names now: never
        a newcomer's first sight of one."""
        if listed is None:
            report.status, report.refused = PeerStatus.REFUSED, {NOT_ON_ROSTER: 1}
            report.key = {"refused": fingerprint(shown)}
            return [], pinned
        pinned = self._let_go(peer, listed, pinned, report, dry_run=dry_run)
        if shown != listed:
            report.status, report.refused = PeerStatus.REFUSED, {"key_not_on_roster": 1}
            report.key.update(refused=fingerprint(shown), roster=fingerprint(listed))
            return [], pinned
        if pinned is not None and pinned["public_key"] == shown:
            return [], pinned  # the key held already: nothing to remember
        report.key["roster"] = fingerprint(shown)
        return roster_keys.rotations_to(roster_keys.keys_of(self.tables, peer, listed), shown, rotations), pinned

    def _let_go(self, peer: str, listed: str, pinned: dict | None, report: PeerReport, *,
                dry_run: bool) -> dict | None:
        """Let go of what was taken under the peer's name that a key the roster does not name
        signed (a squatter's, met before the roster named the agent); one commit. Returns
        the peer's row as then held (None when its key was not the roster's)."""
        found = roster_keys.superseded(self.tables, peer, listed, pinned)
        if found is None:
            return pinned
        stray = roster_keys.stray_memories(self.tables, found)
        if found.pinned_key is not None:
            report.key["let_go"] = fingerprint(found.pinned_key)
        report.let_go = len(stray)
        if not dry_run:
            with self.repo.transaction():
                roster_keys.let_go(self.tables, found, stray)
                self.repo.commit(f"agents: let go {len(stray)} memories of {peer} signed by no key the roster "
                                 f"names", author=self.agent_id)
            self.upkeep.after_commit()
        return None if found.pinned_key is not None else pinned

    def _other_key_held(self, peer: str, shown: str, rotations: list[dict]) -> str | None:
        """An agent on the commons whose branch holds another key for `peer`, one no
        signed rotation leads from to the key `peer` shows now."""
        for branch in sorted(self.repo.remote_branches()):
            witness = agent_of_working(branch.split("/", 1)[1]) if branch.startswith(self.remote + "/") else None
            if witness in (None, peer, self.agent_id):
                continue
            held = self.tables.agents.public_key(peer, as_of=branch)
            if held is not None and held != shown and not rotation_reaches(held, shown, rotations):
                return witness
        return None

    def _report(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    def _progress_of(self, peer: str) -> Progress | None:
        """The session's progress with the peer's name on each stage."""
        if self.progress is None:
            return None
        return lambda stage, done, total: self.progress(f"{peer}: {stage}", done, total)

    def _changed_rows(self, watermark: str | None, head: str, again: Sequence[str] = ()) -> list[dict]:
        """The peer branch's memory rows changed since the watermark, an ancestor of `head`
        (all rows the first time), and those of `again` as `head` holds them."""
        if not watermark:
            return self.tables.memories.rows(as_of=head)
        # the rows after only: a memory's vector is 1.5 KB, and nothing reads the rows before
        rows = [c.new for c in self.repo.diff(watermark, head, "memories", columns=Memory.columns())
                if c.new is not None]
        read = {r["id"] for r in rows}
        return rows + self.tables.memories.rows_by_id([i for i in dict.fromkeys(again) if i not in read],
                                                      as_of=head)

    def _classify(self, peer: str, head: str, peer_key: str, rows: list[dict], report: PeerReport,
                  rotations: list[dict]) -> tuple[merge.MergePlan, set[str], set[str]]:
        """Verify, find candidates, judge and plan. Returns the plan, the texts the judging
        read, and those whose analyses were kept already."""
        memories = [Memory.from_row(row) for row in rows]
        signers = self._signers(peer, peer_key, memories)
        checks = [(key, m.claim(), m.signature) for m, key in zip(memories, signers) if key]
        # OpenSSL releases the GIL: the signatures are checked while this thread finds
        # the candidates; only memories that pass are planned.
        with parallel.in_background(_timed, verify_many, checks) as verifying:
            own = [m for m in memories if m.origin_agent == peer]
            held = self.tables.memories.by_id([m.id for m in own])
            candidates = self._candidates([m for m in own if m.id not in held])
            local_texts = {c.content for hits in candidates.values() for c, _ in hits}
            judge = getattr(self.comparator, "judge", None)
            missing = kept_analyses.recall(self.repo, judge, local_texts)
            valid, report.seconds["verify"] = verifying.result()
        valid = self._recheck(memories, signers, valid, rotations)
        arrivals = sort_out(peer, memories, signers, valid)
        report.refused = arrivals.refused
        rule = self.refutations.rule()
        ctx = merge.MergeContext(receiver=self.agent_id, trust=self.peers.trust_scores(),
                                 known_cases=self._held_cases(), settings=self.settings, now=utcnow(),
                                 unsettled=self._unsettled(), refute=rule.of, absorbed=self._absorbed_into(own, held))
        planned, read = plan_pull(peer, head, arrivals.incoming, held, candidates, self.comparator, ctx,
                                  unread=set(missing), progress=self._progress_of(peer))
        report.summary = {**planned.summary(), "relayed_skipped": arrivals.relayed}
        return planned, read, local_texts.difference(missing)

    def _absorbed_into(self, own: Sequence[Memory], held: dict[str, Memory]) -> dict[str, list[Memory]]:
        """The local copies absorbed into each held memory that arrives retracted."""
        retracting = [m.id for m in own if m.retracted and m.id in held and not held[m.id].retracted]
        if not retracting:
            return {}
        rows = self.tables.memories.absorbed_into_any(retracting)
        copies = self.tables.memories.by_id([r["id"] for r in rows])
        absorbed: dict[str, list[Memory]] = {}
        for row in rows:
            absorbed.setdefault(row["absorbed_into"], []).append(copies[row["id"]])
        return absorbed

    def _recheck(self, memories: Sequence[Memory], signers: Sequence[str | None], valid: list[bool],
                 rotations: list[dict]) -> list[bool]:
        """Signatures that failed against an origin's key, checked again against the keys it
        rotated away from: what it signed before a rotation stays its own."""
        if all(valid):
            return valid
        old_keys: dict[str, list[str]] = {}
        for row in [*self.tables.key_rotations.all(), *rotations]:
            old_keys.setdefault(row["agent_id"], []).append(row["old_key"])
        checked = [m for m, key in zip(memories, signers) if key]
        return [ok or any(verify(k, m.claim(), m.signature) for k in old_keys.get(m.origin_agent, ()))
                for m, ok in zip(checked, valid)]

    def _held_cases(self) -> dict[str, Case]:
        """The cases held here, by id: read once a pull, not once a peer (a round's cases grow
        with every peer that disputes), and kept up by `_apply`, the only writer meanwhile."""
        if self._cases is None:
            self._cases = self.tables.cases.by_id()
        return self._cases

    def _unsettled(self) -> frozenset[str]:
        """The resolved cases whose verdict has not taken effect here."""
        applied = self.tables.applied_verdicts.case_ids()
        return frozenset(c.id for c in self._held_cases().values()
                         if c.status == CaseStatus.RESOLVED and c.id not in applied)

    def _signers(self, peer: str, peer_key: str, memories: Sequence[Memory]) -> list[str | None]:
        """Whose key each memory's signature must verify against: the peer's for its own,
        the origin's for copies it holds of others' memories."""
        keys = self.tables.agents.keys()
        for memory in memories:
            if memory.origin_agent != peer and memory.origin_agent not in keys:
                # an origin we have not met yet: its key as published on the commons
                keys[memory.origin_agent] = self._published_key(memory.origin_agent)
        return [peer_key if m.origin_agent == peer else keys[m.origin_agent] for m in memories]

    def _published_key(self, agent_id: str) -> str | None:
        """An agent's public key from its own branch on the commons, if it has one there."""
        ref = peer_working(self.remote, agent_id)
        if ref not in self.repo.remote_branches():
            return None
        return self.tables.agents.public_key(agent_id, as_of=ref)

    def _candidates(self, fresh: list[Memory]) -> merge.candidates.Candidates:
        usable = [m for m in fresh if m.dim == self.model.dim and m.model_version == self.model.version]
        if not usable:
            return {}
        # saved once, after the last peer (Exchange.pull): a save writes the whole index, so
        # one per peer cost a pull of N peers N times the index. The judging analyses the texts
        # of its pairs (plan_pull), so the index takes the new ones in unread.
        return merge.find_candidates(self.keeper.current(save=False, analyse=False), self.tables.memories, usable,
                                     self.comparator.candidate_floor)

    def _apply(self, planned: merge.MergePlan, watermark: dict, unkept: set[str], report: PeerReport,
               rotations: list[dict]) -> None:
        s = planned.counts
        message = (f"pull {planned.peer} at {planned.head[:12]}: {len(planned.inserts)} new ({s['constructive']} "
                   f"constructive, {s['partial']} partial, {s['destructive']} destructive, {s['independent']} "
                   f"independent), {s['updated']} updated, {s['retracted']} retracted")
        # the cases this pull opened or counted again carry our signature
        planned.cases = dict(zip(planned.cases, sign_cases(list(planned.cases.values()), self.identity,
                                                           self.agent_id)))
        first_meeting = not self.peers.known(planned.peer)
        with self.repo.transaction():
            self.tables.outbox.add(events.merged(planned.peer, planned.head, planned.counts, planned.cases.values(),
                                                 self._held_cases(), receiver=self.agent_id))
            merge.apply(self.tables, planned, watermark=watermark)
            if first_meeting:  # verdicts applied before it was met move its trust now
                verdicts.owed_to(self.tables, self.peers, planned.peer, now=iso(utcnow()))
            # a named loser new here: what says the same thing is refuted with it
            self.refutations.after_losers([m.id for m in planned.inserts], now=iso(utcnow()))
            self.tables.key_rotations.write(rotations)
            kept_analyses.keep(self.repo, getattr(self.comparator, "judge", None), unkept)
            # the engine commits outside the GIL (seconds after a big pull): the report is written meanwhile
            with parallel.in_background(self.repo.commit, message, author=self.agent_id) as committing:
                report.pairs = [p.to_dict() for p in planned.pairs]
                report.commit = committing.result()
        self._held_cases().update(planned.cases)
        self.upkeep.after_commit()


def _watermark_row(peer: str, head: str, theirs: dict, pinned: dict | None, now: str) -> dict:
    """The peer's agents row after this pull: its key and model as it publishes them,
    our trust in it, and the head we merged up to."""
    return {"agent_id": peer, "display_name": theirs["display_name"], "public_key": theirs["public_key"],
            "trust_score": pinned["trust_score"] if pinned else trust.START, "branch_name": working_branch(peer),
            "model_version": theirs["model_version"], "last_synced_commit": head, "last_sync": now,
            "capabilities": theirs["capabilities"], "created_at": pinned["created_at"] if pinned else now}


def _timed(fn, *args):
    clock = time.perf_counter()
    return fn(*args), time.perf_counter() - clock
