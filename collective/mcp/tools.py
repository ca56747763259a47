"""The MCP tools: each one Agent call with typed arguments and a documented result.

A tool's docstring is what the client's model reads, so it says briefly what the
tool does and the keys of what comes back. Every result is one JSON object (a list
comes paged under a key), compact unless asked for detail (brief.py), then as
`cmem ... --json` prints it. A CollectiveError becomes a tool error carrying the
CLI's line in the tools' words (wording.py); bad arguments write nothing, as on
the CLI. Work committed here that the commons did not get (NotShared, the CLI's
exit 3) is no error: its result says so under "not_shared".
"""

from __future__ import annotations

import functools
import inspect
import re
import threading
from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import Field

from ..errors import BadInput, CollectiveError, NotShared, one_line
from ..reports import (ChallengeReport, DreamReport, ForgetReport, Judgement, KeyRotation, ListReport,
                       LogReport, PeerReport, PeersReport, ProposalReport, PushReport, RecallReport, ShowReport,
                       StabilityReport, StatusReport, StoreReport, SyncWindowReport, TrustLedger, UpdateReport,
                       compact, plain)
from .brief import DisputeBrief, DisputesPage, PullBrief, dispute_brief, page, pull_brief, returns
from .wording import in_tool_words

if TYPE_CHECKING:
    from ..agent import Agent

Result = dict[str, Any]

# What every server offers: what a model needs to remember, recall, correct, share and
# notice disputes. The operator's verbs come with `cmem mcp --operator`, a person's
# decisions (person.py) with --reviewer: each tool listed costs its reader tokens.
MEMORY = ("store", "update", "forget", "challenge", "recall", "list_memories", "show", "status", "push", "pull",
          "disputes", "dispute", "promote", "endorse")
OPERATOR = ("log", "peers", "trust", "stability", "judge", "sync", "dream", "rotate_key")
PERSON = ("resolve", "reopen", "decide_promotion", "decide_key")
# Tools that change nothing the agent shares (recall counts accesses in a local,
# unversioned table; it never commits).
READ_ONLY = frozenset({"recall", "list_memories", "show", "log", "status", "disputes", "dispute", "peers", "trust",
                       "stability", "judge"})
# the names a client's model sees: each says it is about memory, apart from git and shell tools
NAMES = {"list_memories": "memory_list"} | {name: f"memory_{name}" for name in (*MEMORY, *OPERATOR, *PERSON)
                                             if name != "list_memories"}
DISPUTE_STATUS = Literal["open", "pending", "escalated", "resolved"]
# the arguments' schemas as the client's model reads them: what each is, its choices and range
CATEGORY_NAME = Literal["knowledge", "experience", "skill", "social", "emotion"]
CATEGORY = Annotated[CATEGORY_NAME, Field(description="what kind of memory this is")]
IMPORTANCE = Annotated[float, Field(gt=0, le=1, description="how much it matters, in (0, 1]")]
STANCE = Annotated[Literal["affirm", "uncertain", "deny"] | None,
                   Field(description="whether the text asserts its claim, hedges it or denies it")]
HOW_MANY = Annotated[int, Field(ge=1, le=10_000, description="how many to return at most")]
MIN_SCORE = Annotated[float, Field(ge=0, le=1)] | None  # as recall's own check (recall/filters.py)
OFFSET = Annotated[int, Field(ge=0)]
DETAIL = Annotated[bool, Field(description="every field, not only the compact ones")]
WHY = Annotated[str, Field(description="what you hold instead, as a statement: stored as your counter-claim")]
SUPERSEDES = Annotated[str | None, Field(description="id of your own memory this one corrects: retracted with it")]


def _unshared(error: NotShared, done: Any) -> CallToolResult:
    """Work committed here that the commons did not take: what it did, and under "not_shared"
    the line saying so, naming the tool that shares it (the server makes its text the JSON)."""
    line = in_tool_words(one_line(error))
    return CallToolResult(content=[TextContent(type="text", text=line)],
                          structured_content={**done, "not_shared": line})


@functools.cache
def _arguments(tools: type) -> frozenset[str]:
    """Every argument name of the tools `tools` offers."""
    return frozenset(name for attribute, method in inspect.getmembers(tools, inspect.isfunction)
                     if not attribute.startswith("_")
                     for name in inspect.signature(method).parameters if name != "self")


def _as_arguments(error: CollectiveError, arguments: frozenset[str]) -> str:
    """The CLI's line, with a field or an --option that is one of the tools' arguments named
    as the argument ("as-of: ..." as "as_of: ...", "(--text)" as "(text)")."""
    line = one_line(error)
    field = error.field.replace("-", "_") if isinstance(error, BadInput) else ""
    if field in arguments and line.startswith(f"{error.field}: "):
        line = field + line[len(error.field):]
    return re.sub(r"--([a-z][a-z-]*)", lambda m: m[1].replace("-", "_") if m[1].replace("-", "_") in arguments
                  else m[0], line)


def _brief(shape: type, detail: bool) -> Callable[[Any], Any]:
    """A result as `shape` has it compact (unless `detail`): the tokens a model pays for."""
    return plain if detail else (lambda result: compact(plain(result), shape))


class MemoryTools:
    """The tools over one open Agent. The SDK runs each call on a worker thread;
    one lock keeps the agent (one database connection) to one call at a time."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.offered: frozenset[str] = frozenset()  # the tools' names the server offers (its errors name them)
        self._lock = threading.Lock()

    def _call(self, work: Callable[[Agent], Any], *, publishes: bool = False,
              shown: Callable[[Any], Any] = plain) -> Any:
        """work(agent) as plain JSON (as `shown` renders it), or a tool error with the CLI's line.
        Returned rather than raised: the SDK would put "Error executing tool NAME: " before a
        raised one. A tool that changes the agent publishes its events as the CLI's commands do,
        also when its work was committed here but not shared."""
        with self._lock:
            try:
                done = shown(work(self.agent))
            except NotShared as e:  # written: an error would say it was not, and a retry redoes it
                done = _unshared(e, shown(e.result))
            except CollectiveError as e:
                text = in_tool_words(_as_arguments(e, _arguments(type(self))), self.offered)
                return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
            if publishes and self.agent.home.names_nats:
                from ..sync.events.service import publish_waiting
                publish_waiting(self.agent.sync_port(), self.agent.home)
            return done

    @returns(StoreReport)
    def store(self, content: str, category: CATEGORY = "knowledge", tags: list[str] | None = None,
              importance: IMPORTANCE = 0.5, phase: float | None = None, stance: STANCE = None,
              supersedes: SUPERSEDES = None, detail: DETAIL = False) -> StoreReport:
        """Remember one fact, committed on this agent's branch. The same content again at a
        phase less than 45 degrees from the one held reinforces that memory (deduplicated:
        true); at another stance it is a new memory. A memory's stance in a result is the
        one given, "explicit" for a phase, or null when read from the wording. "contradicts"
        names your own memories it contradicts: pass supersedes to retract the one it
        corrects in the same commit.
        """
        return self._call(lambda agent: agent.store(content, category=category, tags=tags or [], importance=importance,
                                                    phase=phase, stance=stance, supersedes=supersedes),
                          publishes=True, shown=_brief(StoreReport, detail))

    @returns(RecallReport)
    def recall(self, query: str, k: HOW_MANY = 5, offset: OFFSET = 0, min_score: MIN_SCORE = None,
               tags: list[str] | None = None, categories: list[CATEGORY_NAME] | None = None,
               origins: list[str] | None = None, since: str | None = None, until: str | None = None,
               as_of: str | None = None, include_faded: bool = False, include_refuted: bool = False,
               consensus: bool = False, detail: DETAIL = False) -> RecallReport:
        """Recall the k memories that best answer the query, best first, by its words and
        its meaning (offset: after the first that many, the next page); never commits.
        score: relevance (0 to 1) times strength. When no hit reaches min_score, "closest"
        names the nearest left out. Filters: tags (all), categories, origins (any), since
        and until (both inclusive).
        """
        def paged(agent: Agent):
            found = agent.recall(query, k=k + offset, min_score=min_score, tags=tags, categories=categories,
                                 origins=origins, since=since, until=until, as_of=as_of, include_faded=include_faded,
                                 include_refuted=include_refuted, consensus=consensus)
            del found[:offset]
            return found
        return self._call(paged, shown=_brief(RecallReport, detail))

    @returns(ListReport)
    def list_memories(self, limit: HOW_MANY = 10, offset: OFFSET = 0, tags: list[str] | None = None,
                      categories: list[CATEGORY_NAME] | None = None, origins: list[str] | None = None,
                      since: str | None = None, until: str | None = None, include_refuted: bool = False,
                      detail: DETAIL = False) -> ListReport:
        """Browse the memories recall can find, newest first, a page at a time."""
        return self._call(lambda agent: agent.list_memories(
            limit=limit, offset=offset, tags=tags, categories=categories, origins=origins, since=since,
            until=until, include_refuted=include_refuted), shown=_brief(ListReport, detail))

    @returns(ShowReport)
    def show(self, memory_id: str) -> ShowReport:
        """One memory by id, whole, with its links, access count and dispute."""
        return self._call(lambda agent: agent.show(memory_id))

    @returns(ForgetReport)
    def forget(self, memory_id: str) -> ForgetReport:
        """Retract one of this agent's own memories: kept in history, never deleted."""
        return self._call(lambda agent: agent.forget(memory_id), publishes=True)

    @returns(UpdateReport)
    def update(self, memory_id: str, content: str) -> UpdateReport:
        """Correct one of this agent's own memories: the content becomes a new memory whose
        parent is the old one, which is retracted."""
        return self._call(lambda agent: agent.update(memory_id, content), publishes=True)

    @returns(ChallengeReport)
    def challenge(self, memory_id: str, why: WHY) -> ChallengeReport:
        """Say another agent's memory is wrong: why (what you hold instead, as a statement)
        is stored as your counter-claim and the two are disputed, for a person to decide.
        Only its origin edits a memory."""
        return self._call(lambda agent: agent.challenge(memory_id, why), publishes=True)

    @returns(LogReport)
    def log(self, limit: HOW_MANY = 10, offset: OFFSET = 0) -> LogReport:
        """The agent's commits, newest first, a page at a time."""
        return self._call(lambda agent: {"commits": agent.log(limit + offset)[offset:]})

    @returns(StatusReport)
    def status(self) -> StatusReport:
        """The agent at a glance: counts (open_cases: disputes waiting), head, remotes."""
        return self._call(lambda agent: agent.status())

    @returns(PushReport)
    def push(self, remote: str | None = None) -> PushReport:
        """Share what this agent stored: push its branch, and the disputes it holds, to the
        commons."""
        return self._call(lambda agent: agent.push(remote), publishes=True)

    @returns(PullBrief)
    def pull(self, remote: str | None = None, peers: list[str] | None = None, dry_run: bool = False,
             detail: DETAIL = False) -> PullBrief:
        """Learn what peers stored since the last pull: fetch the commons and merge each
        peer that moved. Per peer, "summary" counts what its memories became (new,
        constructive, destructive: disputed, ...) and "cases" names the disputes opened.
        """
        return self._call(lambda agent: agent.pull(remote, peers=peers or [], dry_run=dry_run), publishes=True,
                          shown=plain if detail else pull_brief)

    @returns(DisputeBrief, key="disputes")
    def disputes(self, status: DISPUTE_STATUS | None = "open", limit: HOW_MANY = 5, offset: OFFSET = 0,
                 detail: DETAIL = False) -> DisputesPage:
        """Disagreements between two claims, escalated first, then oldest: "open" (pending
        or escalated, the default), one status, or null for all. Do not settle one: a
        person decides.
        """
        return self._call(lambda agent: page(agent.disputes(status), "disputes", limit, offset,
                                             plain if detail else dispute_brief))

    def dispute(self, dispute_id: str) -> Result:
        """One dispute whole, both claims side by side; a case id of it finds it too.

        Returns a dispute as memory_disputes gives one, with every field (its cases, both
        sides' copies and lineage, the verdict and reopening).
        """
        return self._call(lambda agent: agent.dispute(dispute_id))

    @returns(ProposalReport)
    def promote(self, memory_id: str, note: str | None = None) -> ProposalReport:
        """Propose one of this agent's own memories for main, the collective's consensus:
        it lands when a reviewer approves or enough agents endorse it."""
        return self._call(lambda agent: agent.promote(memory_id, note=note), publishes=True)

    @returns(ProposalReport)
    def endorse(self, memory_id: str) -> ProposalReport:
        """Endorse another agent's proposal for main, signed by this agent."""
        return self._call(lambda agent: agent.endorse(memory_id), publishes=True)

    @returns(DreamReport)
    def dream(self, full: bool = False) -> DreamReport:
        """Consolidate memory: strengthen what is recalled together, synthesise clusters,
        dispute contradictions, prune faded copies; only what changed since the last
        dream unless full. Merged here and shared with peers.
        """
        return self._call(lambda agent: agent.dream(full=full), publishes=True)

    @returns(PeerReport, key="peers")
    def peers(self, limit: HOW_MANY = 10, offset: OFFSET = 0) -> PeersReport:
        """The agents this one has met: their trust here, last sync and key."""
        def listed(agent: Agent) -> PeersReport:
            found = agent.peers()
            for peer in found:  # its warning names the command that decides: here, the tool
                if peer.get("key_warning"):
                    peer["key_warning"] = in_tool_words(peer["key_warning"], self.offered)
            return page(found, "peers", limit, offset)
        return self._call(listed)

    @returns(TrustLedger)
    def trust(self, agent_id: str) -> TrustLedger:
        """A peer's trust score here and the ledger of every change to it."""
        return self._call(lambda agent: agent.trust_ledger(agent_id))

    @returns(StabilityReport)
    def stability(self) -> StabilityReport:
        """How settled the memory is, 0 to 1: high when recallable memories are strong and
        evenly so. Dreams raise it."""
        return self._call(lambda agent: agent.stability())

    @returns(Judgement)
    def judge(self, a: str, b: str) -> Judgement:
        """How two statements relate, as the merge sees them: constructive, destructive,
        partial or independent. Writes nothing."""
        return self._call(lambda agent: agent.compare(a, b))

    @returns(KeyRotation)
    def rotate_key(self) -> KeyRotation:
        """Replace this agent's signing key: the new key, signed by the old, is published on
        its branch; peers take it at their next pull."""
        return self._call(lambda agent: agent.rotate_key(), publishes=True)

    @returns(SyncWindowReport)
    def sync(self, remote: str | None = None) -> SyncWindowReport:
        """One sync window's work now: cases the commons lacks, a finished dream's push,
        queued pulls, then a pull of every peer and a push; inside cmem.toml's [sync]
        windows only (always, without any).
        """
        from ..sync.windows import scheduler
        return self._call(lambda agent: scheduler(agent.sync_port(), remote=remote).once(), publishes=True)
