"""What to pull when a peer says it learned something: a pure decision with its reason.

For a memory event (`memory.stored`, `memory.boosted`):

- skip a sender the agent trusts less than `min_trust`;
- pull now when amplitude x trust >= `pull_now`;
- pull now when it matches the agent's focus: one of `focus_tags`, or a topic (or summary)
  whose embedding is within `focus_similarity` (cosine) of a `focus` phrase;
- queue for the next sync window when amplitude x trust >= `queue`;
- else skip.

A peer's synthesis (`dream.hallucination`) is weighed the same way with its
amplitude times `hallucination_share` (0.5: what importing it would give it), but
never pulled now: syntheses travel with the dream artifacts, which every pull
imports, so one that is in focus or weighs at least `queue` waits for the sync
window. A finished dream (`dream.completed`) of a trusted sender queues the pull
of its artifacts for the window as well.

Retractions, disputes and verdicts of trusted senders are queued for the sync
window; a peer's push pulls now when memories it announced are still waited for.
The rest (status, plans, requests, dream.started) is noted and skipped.

Defaults, set in cmem.toml under [listen]: min_trust 0.3, pull_now 0.4 (amplitude
0.8 at the starting trust 0.5), queue 0.15, focus_similarity 0.5, no focus,
hallucination_share 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, assert_never

from collective.config import setting
from collective.model.enums import EventType as E
from collective.model.events import EVENT_TYPES

NOW, QUEUE, SKIP = "now", "queue", "skip"
MEMORY_TYPES = (E.MEMORY_STORED, E.MEMORY_BOOSTED)
SYNTHESIS = E.DREAM_HALLUCINATION
HELD_TYPES = (*MEMORY_TYPES, SYNTHESIS)  # about one memory: done when the receiver holds it

FocusMatch = Callable[[str], tuple[str, float] | None]  # topic or summary -> (best focus phrase, cosine)


@dataclass(frozen=True)
class Decision:
    action: str
    reason: str


_SCORE = {"at_least": 0, "at_most": 10}


@dataclass(frozen=True)
class PolicySettings:
    """[listen] in cmem.toml (Home.section(PolicySettings)); each number from 0 to 10."""

    TABLE: ClassVar[str] = "listen"

    min_trust: float = setting(0.3, "a sender trusted less than this: skip", **_SCORE)
    pull_now: float = setting(0.4, "amplitude x trust at or above this: pull now", **_SCORE)
    queue: float = setting(0.15, "amplitude x trust at or above this: queue for the next sync window", **_SCORE)
    focus_similarity: float = setting(0.5, "a topic (or summary) this close (cosine) to a focus phrase is in focus",
                                      **_SCORE)
    focus_tags: tuple[str, ...] = setting((), "a memory with one of these tags: pull now", kind=(str,))
    focus: tuple[str, ...] = setting((), "phrases: a memory whose topic is close to one: pull now", kind=(str,))
    hallucination_share: float = setting(0.5, "a peer's synthesis: its amplitude counts this much (queued at "
                                         "most)", **_SCORE)


def decide(event_type: str, payload: Mapping[str, Any], *, trust: float, settings: PolicySettings,
           focus: FocusMatch | None = None, waiting: int = 0) -> Decision:
    """The action for one verified event from a peer, and why. `waiting`: how many of this
    sender's announced memories a pull has not brought yet."""
    if trust < settings.min_trust:
        return Decision(SKIP, f"low trust in the sender ({trust:.2f} < {settings.min_trust:.2f})")
    if event_type not in EVENT_TYPES:  # a verified event has a known type; this one came some other way
        return Decision(SKIP, f"{event_type!r} is no event type this version knows")
    match E(event_type):  # every type named once: a new one fails here until it has a rule
        case E.SYNC_PUSHED:
            if waiting:
                return Decision(NOW, f"the sender pushed; {waiting} announced memory(ies) wait for it")
            return Decision(SKIP, "the sender pushed; nothing waits for it")
        case (E.MEMORY_PRUNED | E.MEMORY_DISPUTED | E.MERGE_CONFLICT | E.QUARANTINE_ESCALATED
              | E.QUARANTINE_RESOLVED | E.DREAM_COMPLETED):
            return Decision(QUEUE, f"{event_type} from a trusted sender: next sync window")
        case E.DREAM_HALLUCINATION:
            decision = _memory(payload, trust, settings, focus, share=settings.hallucination_share)
            if decision.action == NOW:  # the dream artifacts come with `cmem pull`, in the window
                return Decision(QUEUE, f"a synthesis: {decision.reason}: next sync window")
            return decision
        case E.MEMORY_STORED | E.MEMORY_BOOSTED:
            return _memory(payload, trust, settings, focus)
        case E.DREAM_STARTED | E.MERGE_PROPOSED | E.SYNC_REQUESTED | E.AGENT_STATUS:
            return Decision(SKIP, f"{event_type} is for information")
        case unknown:
            assert_never(unknown)


def _memory(payload: Mapping[str, Any], trust: float, settings: PolicySettings, focus: FocusMatch | None, *,
            share: float = 1.0) -> Decision:
    amplitude = float(payload["amplitude"]) * share
    score = amplitude * trust
    weighed = f"amplitude {amplitude:.2f} x trust {trust:.2f} = {score:.2f}"
    if score >= settings.pull_now:
        return Decision(NOW, f"{weighed} >= {settings.pull_now:.2f}")
    tags = sorted(set(payload.get("tags", ())) & set(settings.focus_tags))
    if tags:
        return Decision(NOW, f"tag(s) {', '.join(tags)} in focus")
    # what the event says the memory is about: its summary where its sender shares it, else its topic
    about, named = (payload["summary"], "summary") if payload.get("summary") else (
        " ".join(payload.get("topic", ())), "topic")
    if about and focus is not None and settings.focus:
        match = focus(about)
        if match is not None and match[1] >= settings.focus_similarity:
            return Decision(NOW, f"{named} matches focus {match[0]!r} ({match[1]:.2f})")
    if score >= settings.queue:
        return Decision(QUEUE, f"{weighed} >= {settings.queue:.2f}: next sync window")
    return Decision(SKIP, f"{weighed} < {settings.queue:.2f}, not in focus")
