"""The MCP tools: each one Agent call with typed arguments and a documented result.

A tool's docstring is what the client's model reads, so it says what the tool
does and the shape of what comes back. Every result is one JSON object (a list
comes wrapped under a key), as `cmem ... --json` prints it. A CollectiveError
becomes a tool error carrying the one line the CLI prints; bad arguments
write nothing, as on the CLI.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import Field

from ..errors import CollectiveError, one_line
from ..reports import DisputeReport, PullReport, PushReport, StatusReport, documented

if TYPE_CHECKING:
    from ..agent import Agent

Result = dict[str, Any]

# Tools that change nothing the agent shares (recall counts accesses in a local,
# unversioned table; it never commits).
READ_ONLY = ("recall", "list_memories", "show", "log", "status", "disputes", "dispute", "peers", "trust",
             "stability", "judge")
CHANGING = ("store", "update", "forget", "push", "pull", "promote", "endorse", "dream")
# the names a client's model sees: each says it is about memory, apart from git and shell tools
NAMES = {"list_memories": "memory_list"} | {name: f"memory_{name}" for name in (*READ_ONLY, *CHANGING)
                                             if name != "list_memories"}
DISPUTE_STATUS = Literal["open", "pending", "escalated", "resolved"]
# the arguments' schemas as the client's model reads them: what each is, its choices and range
CATEGORY = Annotated[Literal["knowledge", "experience", "skill", "social", "emotion"],
                     Field(description="what kind of memory this is")]
IMPORTANCE = Annotated[float, Field(gt=0, le=1, description="how much it matters: its amplitude, in (0, 1]")]
STANCE = Annotated[Literal["affirm", "uncertain", "deny"] | None,
                   Field(description="whether the text asserts its claim, hedges it or denies it")]
HOW_MANY = Annotated[int, Field(ge=1, le=10_000, description="how many to return at most")]


def plain(value: Any) -> Any:
    """JSON types only, as the CLI's --json output renders them (str() for the rest)."""
    return json.loads(json.dumps(value, default=str))


class MemoryTools:
    """The tools over one open Agent. The SDK runs each call on a worker thread;
    one lock keeps the agent (one database connection) to one call at a time."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self._lock = threading.Lock()

    def _call(self, work: Callable[[Agent], Any], *, publishes: bool = False) -> Any:
        """work(agent) as plain JSON, or a tool error with the CLI's line. Returned rather
        than raised: the SDK would put "Error executing tool NAME: " before a raised one.
        A tool that changes the agent publishes its events as the CLI's commands do."""
        with self._lock:
            try:
                done = plain(work(self.agent))
            except CollectiveError as e:
                return CallToolResult(content=[TextContent(type="text", text=one_line(e))], is_error=True)
            if publishes and self.agent.home.names_nats:
                from ..sync.events.service import publish_waiting
                publish_waiting(self.agent.sync_port(), self.agent.home)
            return done

    def store(self, content: str, category: CATEGORY = "knowledge", tags: list[str] | None = None,
              importance: IMPORTANCE = 0.5, phase: float | None = None, stance: STANCE = None) -> Result:
        """Store a memory and commit it on the agent's working branch; storing identical
        content again reinforces the existing memory instead.

        category: knowledge, experience, skill, social or emotion. importance: the
        amplitude, in (0, 1]. stance: affirm, uncertain or deny (or phase in radians:
        0 affirms, pi denies).

        Returns the memory: {"id", "content", "summary", "category", "tags", "amplitude",
        "phase", "stance", "origin_agent", "created_at", ...} plus "deduplicated" (true when
        it reinforced an existing memory) and "commit" (the commit made).
        """
        return self._call(lambda agent: agent.store(content, category=category, tags=tags or [], importance=importance,
                                                    phase=phase, stance=stance).to_dict(), publishes=True)

    def recall(self, query: str, k: HOW_MANY = 5, min_score: float | None = None, tags: list[str] | None = None,
               categories: list[str] | None = None, origins: list[str] | None = None, since: str | None = None,
               until: str | None = None, as_of: str | None = None, include_faded: bool = False,
               include_refuted: bool = False, consensus: bool = False) -> Result:
        """Recall the k memories that best answer the query: found by its words and its
        meaning, ranked by relevance (0 to 1) times a damped resonance (amplitude, trust,
        recency, access). Never commits. A short keyword query works as well as a question.

        min_score: least relevance a hit has (default 0.15); when none passes, "closest"
        names the best one left out, so an empty answer still says what came nearest.
        tags (all of them), categories, origins (any of them), since, until (ISO-8601):
        only memories that match.
        as_of: a commit, branch or timestamp: recall what the agent believed then.
        include_faded: also memories whose strength fell below the fade threshold.
        include_refuted: also memories a person's verdict refuted (their refuted_by set).
        consensus: only memories the collective promoted to main (as of the last pull).

        Returns {"hits": [{"id", "score", "relevance", "similarity", "lexical", "resonance",
        "strength", "access_count", "disputed", "refuted_by", "valid_until", "summary",
        "content", "category", "tags", "origin_agent", "amplitude", "created_at"}],
        "min_score", "closest": a hit or null}, best first.
        """
        return self._call(lambda agent: agent.recall(
            query, k=k, min_score=min_score, tags=tags, categories=categories, origins=origins, since=since,
            until=until, as_of=as_of, include_faded=include_faded, include_refuted=include_refuted,
            consensus=consensus).to_dict())

    def list_memories(self, limit: HOW_MANY = 20, offset: int = 0, tags: list[str] | None = None,
                      categories: list[str] | None = None, origins: list[str] | None = None,
                      since: str | None = None, until: str | None = None, include_refuted: bool = False) -> Result:
        """Browse the memories recall can find, newest first, a page at a time; filters as
        for recall.

        Returns {"total", "offset", "memories": [{"id", "content", "summary", "category",
        "tags", "amplitude", "origin_agent", "created_at", ...}]}.
        """
        return self._call(lambda agent: agent.list_memories(
            limit=limit, offset=offset, tags=tags, categories=categories, origins=origins, since=since,
            until=until, include_refuted=include_refuted))

    def show(self, memory_id: str) -> Result:
        """One memory by id, with its links, access count and dispute.

        Returns the memory ({"id", "content", "category", "amplitude", "origin_agent",
        "disputed", "retracted", "refuted_by", "valid_until", ...}) plus "links",
        "access_count" and "dispute" ({"dispute", "status"} or null).
        """
        return self._call(lambda agent: agent.show(memory_id))

    def forget(self, memory_id: str) -> Result:
        """Retract one of this agent's own memories: a signed, committed change kept in
        history, never a delete.

        Returns {"id", "retracted", "changed" (false if it was already retracted), "commit"}.
        """
        return self._call(lambda agent: agent.forget(memory_id), publishes=True)

    def update(self, memory_id: str, content: str) -> Result:
        """Correct one of this agent's own memories: the corrected content becomes a new memory
        whose parent is the old one, and the old one is retracted (kept in history).

        Returns {"id" (the new memory), "content", "replaces", "commit"}.
        """
        return self._call(lambda agent: agent.update(memory_id, content), publishes=True)

    def log(self, n: HOW_MANY = 20) -> Result:
        """The agent's last n commits, newest first.

        Returns {"commits": [{"commit", "author", "email", "date", "message"}]}.
        """
        return self._call(lambda agent: {"commits": [c.to_dict() for c in agent.log(n)]})

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

    def promote(self, memory_id: str, note: str | None = None) -> Result:
        """Propose one of this agent's own memories for main, the collective's consensus;
        it lands there when a reviewer approves it or enough agents endorse it.

        Returns the proposal ({"memory", "origin_agent", "status", "endorsements", ...})
        plus "promotions" (what crossed the commons).
        """
        return self._call(lambda agent: agent.promote(memory_id, note=note), publishes=True)

    def endorse(self, memory_id: str) -> Result:
        """Endorse another agent's proposed memory, signed by this agent.

        Returns the proposal as it stands after it, plus "promotions".
        """
        return self._call(lambda agent: agent.endorse(memory_id), publishes=True)

    def dream(self, full: bool = False) -> Result:
        """Consolidate memory, as a night's sleep would: memories recalled together are
        strengthened, clusters get a synthesis, contradictions found are disputed, faded
        copies pruned; incremental (only what changed since the last dream) unless full.
        The result is merged into the agent's memory and shared with its peers.

        Returns {"run", "branch", "base", "head", "mode", "status", "jobs", "counts",
        "clusters", "coherence", "stability": {"before", "after"}, "strengthened", "disputed",
        "synthesised", "pruned", "coaccess_folded", "shared", "seconds"}, as `cmem dream --json`.
        """
        return self._call(lambda agent: agent.dream(full=full), publishes=True)

    def peers(self) -> Result:
        """The agents this one has met: their trust here, last sync and key.

        Returns {"peers": [{"agent", "trust", "last_sync", "last_synced_commit", "key_fingerprint",
        "memories", "key_warning"}]}, as `cmem agents --json`.
        """
        return self._call(lambda agent: {"peers": agent.peers()})

    def trust(self, agent_id: str) -> Result:
        """A peer's trust score here and the ledger of every change to it (why, when, by what).

        Returns {"agent", "trust", "events": [{"delta", "score_after", "reason", "evidence",
        "verifier", "created_at"}]}, as `cmem trust --json`.
        """
        return self._call(lambda agent: agent.trust_ledger(agent_id))

    def stability(self) -> Result:
        """How settled the agent's memory is, from 0 to 1: high when the memories recall can
        return are strong and evenly so, 0 when there are none. Dreams raise it.

        Returns {"stability", "memories" (how many it was taken over)}.
        """
        return self._call(lambda agent: agent.stability())

    def judge(self, a: str, b: str) -> Result:
        """How two statements relate, as the merge would see them: constructive (agree),
        destructive (contradict), partial or independent. Writes nothing.

        Returns {"relation", "confidence", "reason", "matched", "clashed",
        "phase_difference", "similarity"}.
        """
        return self._call(lambda agent: agent.compare(a, b))
