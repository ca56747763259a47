"""The porcelain: one agent's memory. `Agent.open(...)`, then store, recall, push, pull...

A facade: each method hands the call to a service (writer, recall, peers,
quarantine, exchange, promotions, the index keeper; a dream through its port),
each built from the parts it needs; a few check input or join two services'
results (a pull and the dream artifacts it brings). The sync package, on top, calls
back through the port Agent.sync_port makes.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from . import history, key_rotation, provision, status
from .config import Home, Settings
from .embedders import Embedder
from .embedding_model import EmbeddingModel
from .errors import AgentExists
from .index.keeper import IndexKeeper
from .reports import (ForgetReport, Judgement, KeyDecision, KeyRotation, PeerReport, Proposal, ProposalReport,
                      PullReport, PushReport, ShowReport, StabilityReport, StatusReport, TrustLedger, UpdateReport)
from .model import DEFAULT_AMPLITUDE, Memory, events, utcnow, validate_ref
from .peers import Peers
from .quarantine.refutation import Refutations, SameClaim
from .recall import AccessCounter, Recall, Recalled, RecallHit
from .agent_recall import RecallVerbs
from .agent_dream import DreamVerbs
from .agent_pictures import PictureVerbs
from .agent_review import ReviewVerbs
from .agent_corrections import CorrectionVerbs
from .agent_roster import RosterVerbs
from .agent_sync import SyncVerbs
from .runtime.progress import Progress
from .store.port import Commit
from .store.tables import Tables
from .upkeep import Upkeep
from .writer import MemoryInput, StoreResult, Writer

if TYPE_CHECKING:
    from .exchange import Exchange
    from .exchange.remotes import Remotes
    from .judge import Judge
    from .merge import Comparator
    from .promotion import Promotions
    from .quarantine.disputes import Disputes
    from .quarantine.service import Quarantine
    from .roster.service import Rosters

__all__ = ["Agent", "MemoryInput", "Recalled", "RecallHit", "StoreResult"]


class Agent(RecallVerbs, ReviewVerbs, CorrectionVerbs, RosterVerbs, DreamVerbs, SyncVerbs, PictureVerbs):
    """One agent's memory database, branch, key and index."""

    def __init__(self, opened: provision.Opened, *, embedder: Embedder | None = None, judge: Judge | None = None):
        self.home, self.agent_id, self.location = opened.home, opened.agent_id, opened.location
        self.repo, self.branch = opened.repo, opened.branch
        self.settings: Settings = self.home.settings
        self._judge = judge
        sender = events.Sender(self.agent_id, events.validate_collective(self.home.collective),
                               self.settings.summary_for(self.agent_id)) if self.settings.events_enabled else None
        tables = self.tables = Tables(self.repo, sender, outbox_limit=self.settings.outbox_limit)
        self.identity = key_rotation.recover(tables, opened.identity, self.key_path, agent_id=self.agent_id)
        self.model = EmbeddingModel(tables.agents, self.agent_id, embedder)
        self.upkeep = Upkeep(self.repo, tables.state, gc_every=self.settings.gc_every)
        self.peers_view = Peers(tables, self.agent_id)
        self.keeper = IndexKeeper(self.repo, self.folder, branch=self.branch, dim=lambda: self.model.dim,
                                  model_version=lambda: self.model.version, judge=lambda: self.judge)
        self.access = AccessCounter(self.repo, tables.access)
        self.recaller = Recall(self.repo, tables, self.keeper, self.access, branch=self.branch,
                               settings=self.settings, trust_scores=self.peers_view.trust_scores)
        self.refutations = Refutations(tables, SameClaim(self.comparator, self.model,
                                                         self.settings.similarity_threshold))
        self.writer = Writer(self.repo, tables, self.model, self.identity, self.upkeep, self.refutations,
                             agent_id=self.agent_id, settings=self.settings)

    # --- the services a store never uses, built (and their modules loaded) on first use -----
    @cached_property
    def quarantine(self) -> Quarantine:
        from .quarantine.service import Quarantine
        return Quarantine(self.repo, self.tables, self.peers_view, self.upkeep, self.refutations,
                          agent_id=self.agent_id, branch=self.branch,
                          threshold=self.settings.escalation_threshold, identity=lambda: self.identity,
                          amplitude_cap=self.settings.amplitude_cap, penalty=self.settings.dispute_penalty)

    @cached_property
    def disputes_view(self) -> Disputes:
        from .quarantine.disputes import Disputes
        return Disputes(self.repo, self.tables, self.peers_view, self.quarantine, agent_id=self.agent_id,
                        reason=lambda a, b, similarity: self.judge.judge(a, b, similarity).reason)

    @cached_property
    def remote_names(self) -> Remotes:
        from .exchange.remotes import Remotes
        return Remotes(self.repo, default=self.home.setting("remote"))

    @cached_property
    def promotion(self) -> Promotions:
        from .promotion import Promotions
        return Promotions(self.repo, self.tables, self.peers_view, self.upkeep, identity=lambda: self.identity,
                          agent_id=self.agent_id, branch=self.branch)

    @cached_property
    def rosters(self) -> Rosters:
        from .roster.service import Rosters
        return Rosters(self.repo, self.tables, agent_id=self.agent_id, pinned=lambda: self.home.setting("roster"))

    @cached_property
    def exchange(self) -> Exchange:
        from .exchange import Exchange
        return Exchange(self.repo, self.tables, self.remote_names, self.quarantine, keeper=self.keeper,
                        model=self.model, peers=self.peers_view, upkeep=self.upkeep,
                        comparator=self.comparator, identity=self.identity, agent_id=self.agent_id,
                        branch=self.branch, settings=self.settings, promotions=self.promotion,
                        rosters=self.rosters)

    # --- lifecycle -------------------------------------------------------
    @classmethod
    def init(cls, agent_id: str, *, home: str | Path | None = None, exist_ok: bool = False,
             embedder: Embedder | None = None, display_name: str | None = None,
             backend: str | None = None, dolt_url: str | None = None, judge: Judge | None = None) -> "Agent":
        """Create the agent's database (branches main and <id>/working), key and own row; open it
        (with `judge`, as Agent.open)."""
        the_home = Home.at(home)
        # with --exist-ok, an engine other than the agent's is refused rather than ignored
        wanted = {"backend": backend, "dolt_url": dolt_url} if exist_ok else {}
        if provision.exists(agent_id, the_home, **wanted):
            if not exist_ok:
                raise AgentExists("agent", f"{agent_id} is already initialised in {the_home.root} (use --exist-ok)")
        else:
            provision.create(agent_id, the_home, embedder=embedder, display_name=display_name,
                             backend=backend, dolt_url=dolt_url)
        return cls.open(agent_id, home=the_home.root, embedder=embedder, judge=judge)

    @classmethod
    def open(cls, agent_id: str | None = None, *, home: str | Path | None = None, embedder: Embedder | None = None,
             branch: str | None = None, judge: Judge | None = None) -> "Agent":
        return cls(provision.open_parts(agent_id, Home.at(home), branch=branch), embedder=embedder, judge=judge)

    def close(self) -> None:
        try:
            self.access.flush()
        finally:
            self.keeper.save()
            self.repo.close()

    def __enter__(self) -> "Agent":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def folder(self) -> Path:
        return self.home.agent_dir(self.agent_id)

    @property
    def key_path(self) -> Path:
        return self.folder / provision.KEY_FILE

    @property
    def embedder(self) -> Embedder:
        return self.model.embedder

    @property
    def embedder_version(self) -> str:
        return self.model.version

    @property
    def dim(self) -> int:
        return self.model.dim

    @property
    def judge(self) -> Judge:
        """The pairwise judge this agent uses (Agent.open(..., judge=...), else the default judge,
        or the cascade where `[merge] cross_encoder` is true)."""
        if self._judge is None:
            from .judge import default_judge  # loads the rule judge on first use: `cmem store` never needs it
            self._judge = default_judge(cascade=self.settings.cross_encoder)
        return self._judge

    def comparator(self) -> Comparator:
        """How this agent tells agreement from contradiction when memories meet (in a pull and
        in a dream's detect stage): its judge, turned by explicit stances; an agreement
        absorbs only above `[merge] similarity_threshold`."""
        from .merge import JudgeComparator
        return JudgeComparator(self.judge, threshold=self.settings.similarity_threshold)

    # --- one agent's memory ----------------------------------------------------
    def store(self, content: str, *, category: str | None = None, tags: Sequence[str] = (),
              importance: float = DEFAULT_AMPLITUDE, phase: float | None = None,
              stance: str | None = None, vector: Any = None, supersedes: str | None = None) -> StoreResult:
        """Store one memory as one commit; identical content reinforces instead. `supersedes`:
        one of this agent's own live memories, retracted in the same commit (the new one's
        parent). The result names the agent's own live memories the judge finds it
        contradicts (`contradicts`)."""
        item = MemoryInput(content, category, tags, importance, phase, stance, vector)
        result = self.writer.supersede(supersedes, item) if supersedes is not None else self.store_many([item])[0]
        result.contradicts = self.contradictions(result.memory)
        return result

    def store_many(self, items: Iterable[str | MemoryInput | Mapping[str, Any]]) -> list[StoreResult]:
        """Store many memories in one transaction and one commit: each a text, a MemoryInput
        or a mapping of its fields."""
        return self.writer.store_many(MemoryInput.batch(items))

    def forget(self, memory_id: str) -> ForgetReport:
        """Retract one of this agent's own memories (a signed, committed change; never a delete)."""
        return self.writer.forget(memory_id)

    def update(self, memory_id: str, content: str) -> UpdateReport:
        """Correct one of this agent's own memories: a new memory, its parent the old one, which
        is retracted; one commit. {"id", "content", "replaces", "commit"}."""
        return self.writer.update(memory_id, content)

    def get(self, memory_id: str, *, as_of: str | None = None) -> Memory:
        return self.tables.memories.require(memory_id, as_of=validate_ref(as_of))

    def show(self, memory_id: str) -> ShowReport:
        """One memory with its links, access count and the dispute it stands in (or None)."""
        return {**self.get(memory_id).to_dict(), "links": self.tables.links.touching(memory_id),
                "access_count": self.access.count_of(memory_id), "dispute": self.disputes_view.of_memory(memory_id)}

    def history(self, memory_id: str, limit: int = 20) -> list[dict]:
        """The commits on this agent's branch that changed one memory's row, newest first,
        with its amplitude, disputed and refuted_by after each."""
        return history.memory_history(self.repo, memory_id, branch=self.branch, limit=limit)

    def log(self, n: int | None = 20) -> list[Commit]:
        """The agent's commits, newest first."""
        return status.log(self.repo, self.branch, n)

    def status(self) -> StatusReport:
        """Agent, engine, branch, head, counts, stability, index state, remotes and events."""
        return status.describe(self.repo, self.tables, self.keeper, self.location, self.home, agent_id=self.agent_id,
                               branch=self.branch, settings=self.settings)

    def stability(self, *, now=None) -> StabilityReport:
        """The field stability of this agent's memory: {"stability", "memories"}."""
        return status.stability(self.tables, self.peers_view.trust_scores(), now or utcnow(), self.settings)

    def compare(self, a: str, b: str) -> Judgement:
        """How two texts relate as this agent's judge sees them: relation, confidence, reason, cosine."""
        from .judge import compare_texts
        return compare_texts(a, b, embedder=self.embedder, judge=self.judge)

    def resolve_as_of(self, ref: str) -> str:
        return self.recaller.resolve_as_of(validate_ref(ref))

    def flush_access(self) -> None:
        self.access.flush()

    def index(self):
        return self.keeper.current()

    def prepare(self, *, progress: Progress | None = None) -> dict:
        """Bring the index, and the judge's analyses of each text it takes in, to the head."""
        return self.keeper.prepare(progress)

    # --- the collective ---------------------------------------------------------
    def credential(self, *, export_to: str | Path | None = None) -> dict:
        """This agent's credential for an authenticated commons (made if missing); `export_to`
        writes its public half into a commons server's --auth-keys folder."""
        from .store import credentials
        return credentials.describe(self.location.folder, self.location.keeps_credentials,
                                    export_to=Path(export_to) if export_to else None)

    def add_remote(self, name: str, url: str) -> dict:
        return self.remote_names.add(name, url)

    def remove_remote(self, name: str) -> dict:
        return self.remote_names.remove(name)

    def set_remote_url(self, name: str, url: str) -> dict:
        return self.remote_names.set_url(name, url)

    def remotes(self) -> dict[str, str]:
        return self.remote_names.all()

    def push(self, remote: str | None = None) -> PushReport:
        return self.exchange.push(remote)

    def pull(self, remote: str | None = None, *, peers: Sequence[str] = (), dry_run: bool = False,
             progress: Progress | None = None) -> PullReport:
        """Fetch the commons, take its roster and cases, merge every peer that moved, follow
        main, share the cases; then import the peers' dream artifacts (`dreams`), by trust."""
        result = self.exchange.pull(remote, peers=peers, dry_run=dry_run, progress=progress)
        if not dry_run:
            result["dreams"] = self.import_dreams(result["remote"])
        return result

    def trust_scores(self, *, as_of: str | None = None) -> dict[str, float]:
        return self.peers_view.trust_scores(as_of=validate_ref(as_of))

    def peers(self) -> list[PeerReport]:
        return self.peers_view.list()

    def trust_ledger(self, agent_id: str) -> TrustLedger:
        return self.peers_view.ledger(agent_id)

    # --- promotions to main (consensus) -------------------------------------------
    def promotions(self, status: str | None = "pending") -> list[Proposal]:
        """Proposals for main as this agent sees them ("pending", "promoted", "rejected", None: all)."""
        return self.promotion.list(status)

    def proposal(self, memory_id: str) -> Proposal:
        """One proposal for main as this agent sees it (as `promotions` lists each)."""
        return self.promotion.show(memory_id)

    def promote(self, memory_id: str, *, note: str | None = None, remote: str | None = None) -> ProposalReport:
        """Propose a memory for main (signed), then share the proposal."""
        remote = self._sharing_remote(remote)  # an unknown remote is bad input: said before anything is signed
        result = self.promotion.propose(memory_id, note=note)
        return self.promotion.share_after("proposal", result, remote)

    def endorse(self, memory_id: str, *, remote: str | None = None) -> ProposalReport:
        """Endorse another agent's proposed memory (signed); the second endorser promotes it."""
        remote = self._sharing_remote(remote)
        result = self.promotion.endorse(memory_id)
        return self.promotion.share_after("endorsement", result, remote)

    def decide_promotion(self, memory_id: str, *, approve: bool, note: str, by: str | None = None,
                         remote: str | None = None) -> ProposalReport:
        """A person approves (promotes) or rejects a proposal, signed with their reviewer key;
        it takes effect where that reviewer is authorised."""
        self.promotion.check_decision(memory_id, note)  # bad input is said before the key is looked for
        reviewer, name = self.reviewer_key(by)
        remote = self._sharing_remote(remote)
        result = self.promotion.decide(memory_id, approve=approve, note=note, by=name, reviewer=reviewer)
        return self.promotion.share_after("decision", result, remote)

    def _sharing_remote(self, remote: str | None) -> str | None:
        """The remote a signed decision is shared on: the one named (NotFound when there is no
        such remote, even with none configured), else the default one; None when there is none."""
        return self.remote_names.choose(remote) if remote is not None or self.remote_names.all() else None

    def rotate_key(self) -> KeyRotation:
        """A new key for this agent, signed by the old one and published on its branch."""
        new, result = key_rotation.rotate(self.repo, self.tables, self.identity, self.key_path, agent_id=self.agent_id)
        self.identity = self.writer.identity = self.exchange.identity = new
        self.upkeep.after_commit()
        return result

    def decide_key(self, agent_id: str, *, accept: bool) -> KeyDecision:
        """A person's decision on a peer's key change that no signed rotation explains."""
        return self.peers_view.decide_key(agent_id, accept=accept)
