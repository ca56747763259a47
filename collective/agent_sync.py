"""What collective.sync uses of an agent, and nothing else (a part of the facade, kept
apart for its size): the tables the scheduler and the listener read and write, the key
that signs events, and the front door's pull and push. The agent makes one
(Agent.sync_port); the sync package never sees the agent, and the agent never imports
the sync package (it sits on top)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .store.dream_tables import DreamRunTable

if TYPE_CHECKING:
    from .identity import Identity
    from .store.event_tables import Decisions, Inbox, Outbox
    from .store.port import Repository
    from .store.tables import AgentTable, CaseTable, LocalState, MemoryTable


@dataclass(frozen=True)
class SyncPort:
    """One agent as the sync package sees it."""

    agent_id: str
    branch: str                                      # the agent's working branch, which a push shares
    repo: Repository                                 # transactions, the head, fetches, the commons' branches
    state: LocalState                                # what the scheduler and the receiver remember
    memories: MemoryTable
    cases: CaseTable                                 # quarantine cases: ours, and as of the commons
    dream_runs: DreamRunTable                        # a finished dream asks for a burst push
    agents: AgentTable                               # the key registry a receiver checks signatures with
    outbox: Outbox
    inbox: Inbox
    decisions: Decisions                             # what the receiver decided for each event
    identity: Callable[[], Identity]                 # the agent's key of now, which signs its events
    model_version: Callable[[], str]                 # the embedding model's, told in agent.status
    embed: Callable[[Sequence[str]], Any]            # the agent's embedder (a listener's focus phrases)
    trust_scores: Callable[[], Mapping[str, float]]
    published_key: Callable[[str], str | None]       # a sender not pulled yet: the roster's key, else the commons'
    choose_remote: Callable[[str | None], str]       # the remote named, else the default or the only one
    pull: Callable[..., dict]                        # Agent.pull: merge the peers, import their dreams
    push: Callable[[str | None], dict]               # Agent.push
    section: Callable[[type], Any]                   # a settings section of cmem.toml (SyncSettings, PolicySettings)


class SyncVerbs:
    """Mixed into Agent, whose parts the port carries."""

    def sync_port(self) -> SyncPort:
        """What the sync scheduler, the event listener, flush and tail use of this agent."""
        tables = self.tables
        return SyncPort(
            agent_id=self.agent_id, branch=self.branch, repo=self.repo, state=tables.state, memories=tables.memories,
            cases=tables.cases, dream_runs=DreamRunTable(self.repo), agents=tables.agents, outbox=tables.outbox,
            inbox=tables.inbox, decisions=tables.decisions, identity=lambda: self.identity,
            model_version=lambda: self.embedder_version, embed=lambda texts: self.embedder.embed(texts),
            trust_scores=self.trust_scores, published_key=lambda agent_id: self.published_key(agent_id, fetch=True),
            choose_remote=self.remote_names.choose, pull=self.pull, push=self.push,
            section=self.home.section)
