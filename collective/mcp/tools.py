"""The MCP tools: each one Agent call with typed arguments and a documented result.

A tool's docstring is what the client's model reads, so it says what the tool
does and the shape of what comes back. Every result is one JSON object (a list
comes wrapped under a key), as `cmem ... --json` prints it. A CollectiveError
becomes a tool error carrying the one line the CLI prints, naming the tool's
argument where the CLI names its option; bad arguments write nothing, as on the
CLI. Work committed here that the commons did not get (NotShared, the CLI's
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
from ..reports import (DisputeReport, DreamReport, ForgetReport, Judgement, KeyRotation, ListReport, LogReport,
                       PeersReport, ProposalReport, PullReport, PushReport, RecallReport, ShowReport, StabilityReport,
                       StatusReport, StoreReport, SyncWindowReport, TrustLedger, UpdateReport, compact, documented,
                       plain)

if TYPE_CHECKING:
    from ..agent import Agent

Result = dict[str, Any]

# Tools that change nothing the agent shares (recall counts accesses in a local,
# unversioned table; it never commits).
READ_ONLY = ("recall", "list_memories", "show", "log", "status", "disputes", "dispute", "peers", "trust",
             "stability", "judge")
CHANGING = ("store", "update", "forget", "push", "pull", "sync", "promote", "endorse", "dream", "rotate_key")
# the names a client's model sees: each says it is about memory, apart from git and shell tools
PERSON = ("resolve", "reopen", "decide_promotion", "decide_key")  # person.py: a reviewer's server only
NAMES = {"list_memories": "memory_list"} | {name: f"memory_{name}" for name in (*READ_ONLY, *CHANGING, *PERSON)
                                             if name != "list_memories"}
DISPUTE_STATUS = Literal["open", "pending", "escalated", "resolved"]
# the arguments' schemas as the client's model reads them: what each is, its choices and range
CATEGORY_NAME = Literal["knowledge", "experience", "skill", "social", "emotion"]
CATEGORY = Annotated[CATEGORY_NAME, Field(description="what kind of memory this is")]
IMPORTANCE = Annotated[float, Field(gt=0, le=1, description="how much it matters, in (0, 1]: its starting amplitude "
                                                            "(reinforcement and agreement raise it, up to [merge] "
                                                            "amplitude_cap, 2 by default)")]
STANCE = Annotated[Literal["affirm", "uncertain", "deny"] | None,
                   Field(description="whether the text asserts its claim, hedges it or denies it")]
HOW_MANY = Annotated[int, Field(ge=1, le=10_000, description="how many to return at most")]
MIN_SCORE = Annotated[float, Field(ge=0, le=1)] | None  # as recall's own check (recall/filters.py)
OFFSET = Annotated[int, Field(ge=0)]
DETAIL = Annotated[bool, Field(description="every field, not only the compact ones (the rest as `cmem ... --json` "
                                           "prints it)")]


def _unshared(error: NotShared, done: Any) -> CallToolResult:
    """Work committed here that the commons did not take: what it did, and under "not_shared"
    the line saying so, naming the tool that shares it (the server makes its text the JSON)."""
    line = one_line(error).replace("run cmem push", "call memory_push")
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
    if not isinstance(error, BadInput):
        return line
    field = error.field.replace("-", "_")
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
                text = _as_arguments(e, _arguments(type(self)))
                return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
            if publishes and self.agent.home.names_nats:
                from ..sync.events.service import publish_waiting
                publish_waiting(self.agent.sync_port(), self.agent.home)
            return done

    @documented(StoreReport, lead="Returns", for_click=False)
    def store(self, content: str, category: CATEGORY = "knowledge", tags: list[str] | None = None,
              importance: IMPORTANCE = 0.5, phase: float | None = None, stance: STANCE = None,
              detail: DETAIL = False) -> StoreReport:
        """Store a memory and commit it on the agent's working branch. The same content
        stored again by this agent, at a phase less than 45 degrees from the one it holds,
        reinforces that memory instead (deduplicated: true); at another stance or phase it
        is a new memory.

        category: knowledge, experience, skill, social or emotion. importance: the starting
        amplitude, in (0, 1]. stance: affirm, uncertain or deny (or phase in radians: 0
        affirms, pi denies; any finite number, taken modulo 2 pi). A memory's stance in a
        result is the one given, "explicit" when a phase was given, or null when it was
        estimated from the wording.
        """
        return self._call(lambda agent: agent.store(content, category=category, tags=tags or [], importance=importance,
                                                    phase=phase, stance=stance),
                          publishes=True, shown=_brief(StoreReport, detail))

    @documented(RecallReport, lead="Returns", for_click=False)
    def recall(self, query: str, k: HOW_MANY = 5, min_score: MIN_SCORE = None, tags: list[str] | None = None,
               categories: list[CATEGORY_NAME] | None = None, origins: list[str] | None = None,
               since: str | None = None, until: str | None = None, as_of: str | None = None,
               include_faded: bool = False, include_refuted: bool = False, consensus: bool = False,
               detail: DETAIL = False) -> RecallReport:
        """Recall the k memories that best answer the query: found by its words and its
        meaning, ranked by relevance (0 to 1) times a damped resonance (amplitude, trust,
        recency, access). Never commits. A short keyword query works as well as a question.

        min_score: least relevance a hit has (default 0.15); when none passes, "closest"
        names the best one left out, so an empty answer still says what came nearest.
        tags (all of them), categories, origins (any of them), since and until (ISO-8601,
        both inclusive): only memories that match.
        as_of: a commit, branch or timestamp: recall what the agent believed then.
        include_faded: also memories faded by age and weak amplitude (below the fade threshold).
        include_refuted: also memories a person's verdict refuted (their refuted_by set).
        consensus: only memories the collective promoted to main (as of the last pull).
        Hits come best first.
        """
        return self._call(lambda agent: agent.recall(
            query, k=k, min_score=min_score, tags=tags, categories=categories, origins=origins, since=since,
            until=until, as_of=as_of, include_faded=include_faded, include_refuted=include_refuted,
            consensus=consensus), shown=_brief(RecallReport, detail))

    @documented(ListReport, lead="Returns", for_click=False)
    def list_memories(self, limit: HOW_MANY = 20, offset: OFFSET = 0, tags: list[str] | None = None,
                      categories: list[CATEGORY_NAME] | None = None, origins: list[str] | None = None,
                      since: str | None = None, until: str | None = None, include_refuted: bool = False,
                      detail: DETAIL = False) -> ListReport:
        """Browse the memories recall can find, newest first, a page at a time; filters as
        for recall."""
        return self._call(lambda agent: agent.list_memories(
            limit=limit, offset=offset, tags=tags, categories=categories, origins=origins, since=since,
            until=until, include_refuted=include_refuted), shown=_brief(ListReport, detail))

    @documented(ShowReport, lead="Returns", for_click=False)
    def show(self, memory_id: str) -> ShowReport:
        """One memory by id, whole, with its links, access count and dispute."""
        return self._call(lambda agent: agent.show(memory_id))

    @documented(ForgetReport, lead="Returns", for_click=False)
    def forget(self, memory_id: str) -> ForgetReport:
        """Retract one of this agent's own memories: a signed, committed change kept in
        history, never a delete."""
        return self._call(lambda agent: agent.forget(memory_id), publishes=True)

    @documented(UpdateReport, lead="Returns", for_click=False)
    def update(self, memory_id: str, content: str) -> UpdateReport:
        """Correct one of this agent's own memories: the corrected content becomes a new memory
        whose parent is the old one, and the old one is retracted (kept in history)."""
        return self._call(lambda agent: agent.update(memory_id, content), publishes=True)

    @documented(LogReport, lead="Returns", for_click=False)
    def log(self, n: HOW_MANY = 20) -> LogReport:
        """The agent's last n commits, newest first."""
        return self._call(lambda agent: {"commits": agent.log(n)})

    @documented(StatusReport, lead="Returns", for_click=False)
    def status(self) -> StatusReport:
        """The agent at a glance, as `cmem status --json`."""
        return self._call(lambda agent: agent.status())

    @documented(PushReport, lead="Returns", for_click=False)
    def push(self, remote: str | None = None) -> PushReport:
        """Push the agent's working branch to the commons (the default remote unless
        named), and the shared quarantine when it has news, as `cmem push --json`.
        """
        return self._call(lambda agent: agent.push(remote), publishes=True)

    @documented(PullReport, lead="Returns", for_click=False)
    def pull(self, remote: str | None = None, peers: list[str] | None = None, dry_run: bool = False) -> PullReport:
        """Fetch the commons and merge what each peer learned since the last pull
        (only the named peers if given), as `cmem pull --json`. dry_run: plan only,
        write nothing.
        """
        return self._call(lambda agent: agent.pull(remote, peers=peers or [], dry_run=dry_run), publishes=True)

    @documented(SyncWindowReport, lead="Returns", for_click=False)
    def sync(self, remote: str | None = None) -> SyncWindowReport:
        """One sync window's work now, as `cmem sync once`: quarantine cases the commons
        lacks, a finished dream's burst push, important memories first, the pulls a
        listener queued, then a pull of every peer and a push. Inside the windows of
        cmem.toml's [sync] only (always, without any); a piece that failed says so in its
        result and the rest still runs.
        """
        from ..sync.windows import scheduler
        return self._call(lambda agent: scheduler(agent.sync_port(), remote=remote).once(), publishes=True)

    @documented(DisputeReport, lead='Returns {"disputes": [...]}, each', for_click=False)
    def disputes(self, status: DISPUTE_STATUS | None = "open") -> Result:
        """Disagreements between two claims, waiting for a person (escalated first, oldest
        first): "open" (pending or escalated, the default), one status, or null for all.
        A person decides them (`cmem quarantine resolve`, or the review page).
        """
        return self._call(lambda agent: {"disputes": agent.disputes(status)})

    @documented(DisputeReport, lead="Returns", for_click=False)
    def dispute(self, dispute_id: str) -> Result:
        """One dispute, both claims side by side; a case id of it finds it too."""
        return self._call(lambda agent: agent.dispute(dispute_id))

    @documented(ProposalReport, lead="Returns", for_click=False)
    def promote(self, memory_id: str, note: str | None = None) -> ProposalReport:
        """Propose one of this agent's own memories for main, the collective's consensus;
        it lands there when a reviewer approves it or enough agents endorse it."""
        return self._call(lambda agent: agent.promote(memory_id, note=note), publishes=True)

    @documented(ProposalReport, lead="Returns", for_click=False)
    def endorse(self, memory_id: str) -> ProposalReport:
        """Endorse another agent's proposed memory, signed by this agent; the proposal as it
        stands after it."""
        return self._call(lambda agent: agent.endorse(memory_id), publishes=True)

    @documented(DreamReport, lead="Returns", for_click=False)
    def dream(self, full: bool = False) -> DreamReport:
        """Consolidate memory, as a night's sleep would: memories recalled together are
        strengthened, clusters get a synthesis, contradictions found are disputed, faded
        copies pruned; incremental (only what changed since the last dream) unless full.
        The result is merged into the agent's memory and shared with its peers, as
        `cmem dream --json`.
        """
        return self._call(lambda agent: agent.dream(full=full), publishes=True)

    @documented(PeersReport, lead="Returns", for_click=False)
    def peers(self) -> PeersReport:
        """The agents this one has met: their trust here, last sync and key, as `cmem agents --json`."""
        return self._call(lambda agent: {"peers": agent.peers()})

    @documented(TrustLedger, lead="Returns", for_click=False)
    def trust(self, agent_id: str) -> TrustLedger:
        """A peer's trust score here and the ledger of every change to it (why, when, by what)."""
        return self._call(lambda agent: agent.trust_ledger(agent_id))

    @documented(StabilityReport, lead="Returns", for_click=False)
    def stability(self) -> StabilityReport:
        """How settled the agent's memory is, from 0 to 1: high when the memories recall can
        return are strong and evenly so, 0 when there are none. Dreams raise it."""
        return self._call(lambda agent: agent.stability())

    @documented(Judgement, lead="Returns", for_click=False)
    def judge(self, a: str, b: str) -> Judgement:
        """How two statements relate, as the merge would see them: constructive (agree),
        destructive (contradict), partial or independent. Writes nothing."""
        return self._call(lambda agent: agent.compare(a, b))

    @documented(KeyRotation, lead="Returns", for_click=False)
    def rotate_key(self) -> KeyRotation:
        """Replace this agent's signing key: the new key is signed by the old and published
        on its branch; peers take it at their next pull (push first), as `cmem key rotate`."""
        return self._call(lambda agent: agent.rotate_key(), publishes=True)
