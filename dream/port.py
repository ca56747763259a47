"""What a dream uses of its agent, and nothing else: its database and tables, its index,
comparator and key, its settings and where it shares. The agent makes one
(Agent.dream_port); the dream package never sees the agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

if TYPE_CHECKING:
    from collective.config import Settings
    from collective.index import VectorIndex
    from collective.merge import Comparator
    from collective.quarantine.refutation import Refutations
    from collective.store.port import Repository
    from collective.store.tables import Tables

    from .settings import DreamSettings


@dataclass(frozen=True)
class DreamPort:
    agent_id: str
    branch: str                      # the agent's working branch, which a run merges into
    repo: Repository
    tables: Tables
    settings: Settings               # half-lives, amplitude cap, fade threshold
    dream: DreamSettings             # the [dream] section
    dim: int
    model_version: str
    index: Callable[[], VectorIndex]                 # brought to the working branch's head
    comparator: Callable[[], Comparator]
    trust_scores: Callable[[], Mapping[str, float]]
    sign: Callable[[bytes], str]                     # with the agent's key of now
    flush_access: Callable[[], None]                 # recalls counted so far, written
    refutations: Refutations                         # the verdicts' rule, for the memories a run makes
    remote: Callable[[str | None], str | None]       # the remote named (or the default); None: the agent has none
