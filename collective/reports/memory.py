"""The memory verbs' shapes: store, update, forget, show, list, recall, log, stability, judge."""

from typing import Annotated, Any

from typing_extensions import NotRequired, TypedDict, get_type_hints


class MemoryRecord(TypedDict):
    """A memory, as every verb that returns one shows it."""

    id: str
    content: str
    summary: Annotated[str, "its first sentence"]
    category: Annotated[str, "knowledge, experience, skill, social or emotion"]
    tags: list
    amplitude: Annotated[float, "how much it matters: stored in (0, 1], raised by reinforcement and agreement up "
                                "to [merge] amplitude_cap (2 by default)"]
    phase: Annotated[float, "its stance in radians: 0 affirms, pi denies"]
    stance: Annotated[str | None, "affirm, uncertain or deny as given, explicit when a phase was given, null "
                                  "when read from the wording"]
    origin_agent: str
    model_version: Annotated[str, "the embedding model's"]
    layer: Annotated[int, "0 stored, 1 or more dreamt"]
    disputed: bool
    hallucinated: bool
    retracted: bool
    absorbed_into: Annotated[str | None, "the memory that took it in"]
    refuted_by: Annotated[str | None, "the verdict that refuted it"]
    valid_until: str | None
    parents: list
    merge_history: list
    created_at: str
    updated_at: str


def _briefed(name: str, doc: str, fields: dict[str, Any], brief: tuple[str, ...]) -> type:
    """A TypedDict of `fields` where only those named in `brief` are required: a compact
    answer (the MCP tools, unless asked for detail) carries those, a full one all."""
    shape = TypedDict(name, {k: (kind if k in brief else NotRequired[kind]) for k, kind in fields.items()})
    shape.__doc__ = doc
    return shape


_MEMORY = get_type_hints(MemoryRecord, include_extras=True)

StoreReport = _briefed("StoreReport", "A stored memory, or the one identical content reinforced.", {
    **_MEMORY,
    "deduplicated": Annotated[bool, "true when it reinforced an existing memory"],
    "commit": Annotated[str | None, "the commit made"],
    "supersedes": Annotated[str | None, "the agent's own memory it retracted in the same commit, or null"],
    "contradicts": Annotated[list | None, "ids of the agent's own live memories the judge finds it contradicts "
                                          "(forget one the new memory replaces; next time store with supersedes); null from a batch store, "
                                          "which does not ask"]},
    brief=("id", "content", "deduplicated", "commit", "supersedes", "contradicts"))

ListedMemory = _briefed("ListedMemory", "A memory in a list.", _MEMORY,
                        brief=("id", "content", "category", "tags", "origin_agent", "created_at"))


class ListReport(TypedDict):
    """A page of the memories recall can find, newest first."""

    total: Annotated[int, "how many match, on every page"]
    offset: int
    memories: list[ListedMemory]


class ShowReport(MemoryRecord):
    """One memory with what surrounds it."""

    links: Annotated[list, "memory, kind, weight"]
    access_count: int
    dispute: Annotated[dict | None, "dispute, status; null when none"]


class ChallengeReport(TypedDict):
    """A challenge of a peer's memory: a counter-claim of this agent, disputed with it."""

    id: Annotated[str, "the counter-claim: a new memory of this agent, its parent the challenged one"]
    content: str
    challenges: Annotated[str, "the memory challenged (its origin's, never edited)"]
    origin_agent: Annotated[str, "the challenged memory's origin"]
    dispute: Annotated[str, "the case opened: a person resolves it (cmem quarantine resolve)"]
    status: Annotated[str, "pending or escalated"]
    commit: str
    quarantine: Annotated[dict, "the cases shared: pushed, cases, ... (pushed false without a remote)"]


class UpdateReport(TypedDict):
    """A correction: a new memory whose parent is the old, which is retracted."""

    id: Annotated[str, "the new memory"]
    content: str
    replaces: str
    commit: str


class ForgetReport(TypedDict):
    """A retraction, kept in history."""

    id: str
    retracted: bool
    changed: Annotated[bool, "false when it was retracted already"]
    commit: str | None


class RecallHitReport(TypedDict):
    """One memory recall found, with its score and why."""

    id: str
    content: str
    score: Annotated[float, "relevance (or what it borrows, when more) times resonance"]
    why: Annotated[str, "the score's parts in words"]
    origin_agent: str
    disputed: bool
    created_at: str
    relevance: NotRequired[Annotated[float, "from the meaning and the words, 0 to 1"]]
    similarity: NotRequired[Annotated[float, "cosine"]]
    lexical: NotRequired[Annotated[float, "share of the query's words"]]
    context: NotRequired[Annotated[float, "relevance borrowed from the memory stored just before or after"]]
    resonance: NotRequired[Annotated[float, "damped strength and access"]]
    strength: NotRequired[Annotated[float, "amplitude x trust x recency"]]
    access_count: NotRequired[int]
    refuted_by: NotRequired[str | None]
    valid_until: NotRequired[str | None]
    summary: NotRequired[str]
    category: NotRequired[str]
    tags: NotRequired[list]
    amplitude: NotRequired[float]


class RecallReport(TypedDict):
    """What recall found, best first."""

    hits: list[RecallHitReport]
    min_score: Annotated[float, "the least relevance a hit has"]
    closest: Annotated[dict | None, "when no hit passed, the best left out (a hit as in hits); else null"]


class CommitRecord(TypedDict):
    commit: str
    author: str
    email: str
    date: str
    message: str


class LogReport(TypedDict):
    """The last commits, newest first."""

    commits: list[CommitRecord]


class StabilityReport(TypedDict):
    """How settled the memory is."""

    stability: Annotated[float, "0 to 1"]
    memories: Annotated[int, "how many it was taken over"]


class Judgement(TypedDict):
    """How two statements relate, as the merge sees them."""

    relation: Annotated[str, "constructive, destructive, partial or independent"]
    confidence: float
    reason: str
    matched: list
    clashed: list
    phase_difference: float
    similarity: Annotated[float, "cosine"]
