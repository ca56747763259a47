"""The settings the core reads: the top of cmem.toml, and [merge], [recall], [storage],
[trust] and [events] (one flat class, as the services take it). dream/ and sync/ declare
their own tables ([dream], [listen], [sync], [nats]) the same way, beside their users.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from ..core import trust, wave
from .loader import setting

# The least relevance (core.scoring) a recalled memory has unless a call asks otherwise: low,
# so that only a query nothing stored is about recalls nothing. On the development questions
# of scripts/bench_recall_quality.py every answer found in the top 10 at 0 is still found at
# 0.15; questions whose answer is not stored but whose topic is score as high as answered
# ones (0.3 to 0.7), so no floor tells them apart without hiding answers (docs/concepts/recall.md).
MIN_SCORE = 0.15
OUTBOX_LIMIT = 10_000


@dataclass(frozen=True)
class TopLevel:
    """Keys at the top of cmem.toml; each has an environment variable over it (environment.py)."""

    TABLE: ClassVar[str | None] = None

    agent: str | None = setting(None, "the agent a command acts as (the first `cmem init` writes it)", kind=str)
    remote: str | None = setting(None, "the remote push and pull use when none is named", kind=str)
    collective: str = setting("default", "the collective: its events go to subjects `cmem.<collective>.>`")
    nats_url: str | None = setting(None, "NATS servers, comma-separated; over [nats] servers", kind=str)
    reviewer: str | None = setting(None, "the reviewer whose key signs a decision when --by names none", kind=str)
    roster: str | None = setting(None, "fingerprint of the roster's first version its agents follow (`cmem init "
                                       "--roster`): a roster that starts elsewhere is refused", kind=str)


@dataclass(frozen=True)
class Settings:
    """How merges, recall, storage, trust and events are tuned."""

    similarity_threshold: float = setting(wave.SIMILARITY_THRESHOLD, "least cosine at which two memories "
                                          "interfere: absorb, dispute or link (pull and dream)", table="merge")
    amplitude_cap: float = setting(wave.AMPLITUDE_CAP, "the most amplitude a merge or a dream gives a memory",
                                   table="merge")
    dispute_penalty: float = setting(wave.DISPUTE_PENALTY, "a dispute weakens both sides: amplitude x "
                                     "(1 - this x similarity)", table="merge")
    escalation_threshold: int = setting(3, "disputes of one pair before its case is escalated", table="merge")
    cross_encoder: bool = setting(False, "the judge hands the pairs it is unsure of, and every agreement it would "
                                  "absorb, to the cross-encoder (the cascade judge; slower)", table="merge")
    fade_threshold: float = setting(0.05, "amplitude x recency under which a memory is faded: left out of recall, "
                                    "kept (trust and open disputes lower its rank, never fade it)", table="recall")
    min_score: float = setting(MIN_SCORE, "least relevance a recalled memory has", table="recall",
                               at_least=0, at_most=1)
    gc_every: int = setting(500, "dolt_gc after this many commits (counted across processes)", table="storage")
    half_lives: Mapping[str, float] = setting(dict(trust.DEFAULT_HALF_LIVES_DAYS), "days in which a memory's "
                                              "recency halves, per category", kind=dict, table="trust",
                                              above=0, unit="days")
    event_summary: bool = setting(False, "memory events carry the first sentence too, beside the topic",
                                  table="events", key="summary")
    event_summary_off: tuple[str, ...] = setting((), "... but not these agents' events", kind=(str,),
                                                 table="events", key="summary_off")
    events_enabled: bool = setting(True, "false: changes write no events at all", table="events", key="enabled")
    outbox_limit: int = setting(OUTBOX_LIMIT, "unsent events kept while NATS is away; beyond, the oldest go",
                                table="events", at_least=1)

    def summary_for(self, agent_id: str) -> bool:
        """Whether this agent's memory events carry the summary."""
        return self.event_summary and agent_id not in self.event_summary_off
