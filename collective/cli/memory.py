"""One agent's own memory: init, store, recall, list, show, forget, update, challenge, log, index, status."""

from __future__ import annotations

import click

from ..errors import BadInput
from ..reports import (ChallengeReport, CommitRecord, ForgetReport, ListReport, RecallReport, ShowReport, StatusReport,
                       StoreReport, UpdateReport, documented)
from .common import (agent_options, cli_errors, emit, filter_options, init_agent, json_option, open_agent, plot_option,
                     progress_bars, write_plot)


@click.command()
@agent_options
@click.option("--exist-ok", is_flag=True, help="Succeed if the agent already exists.")
@click.option("--backend", envvar="CMEM_BACKEND",
              help="doltlite (embedded, the default) or dolt (a Dolt sql-server).")
@click.option("--dolt-url", help="With --backend dolt: mysql://user:pass@host:port/db of a server you run "
                                  "(default: a server managed in the home).")
@click.option("--roster", "roster", metavar="FINGERPRINT",
              help="Follow only the roster whose first version has this fingerprint (as `cmem collective show` "
                   "prints it), or the one a file holds (that command's --json output will do); it is written "
                   "into cmem.toml. Without it, the first roster met is taken on first sight.")
@json_option
def init(home, agent_id, exist_ok, backend, dolt_url, roster, as_json):
    """Create an agent: its database (branches main and <ID>/working), key pair and own row.

    \b
    JSON: {"agent", "home", "engine", "database", "branch", "head", "public_key", "roster": the
           fingerprint pinned, or null}
    """
    with cli_errors():
        if not agent_id:
            raise BadInput("agent", "missing: give --agent ID")
        from ..roster.service import pin_from
        pin = pin_from(roster) if roster is not None else None  # bad input before anything is made
        with init_agent(agent_id, home, exist_ok=exist_ok, backend=backend, dolt_url=dolt_url) as agent:
            if pin is not None:
                agent.home.pin_roster(pin)
            result = {"agent": agent.agent_id, "home": str(agent.home.root), **agent.location.describe(),
                      "branch": agent.branch, "head": agent.repo.head(agent.branch),
                      "public_key": agent.identity.public_key, "roster": agent.home.setting("roster")}
    emit(result, as_json=as_json, text=_render_init)


def _render_init(r: dict) -> str:
    agent = f" --agent {r['agent']}"
    return "\n".join([f"initialised {r['agent']} ({r['engine']}) in {r['home']} on {r['branch']}", "next:",
                      f'  cmem store "what it learned"{agent}',
                      f'  cmem recall "what it asks"{agent}',
                      f"  cmem remote add origin file:///abs/path/commons.db{agent}   # then push, pull"])


@click.command()
@click.argument("content")
@click.option("--category", "-c", default="knowledge", show_default=True,
              help="knowledge, experience, skill, social or emotion.")
@click.option("--tag", "tags", multiple=True, help="A tag; repeat for several.")
@click.option("--importance", default=0.5, show_default=True, type=float,
              help="The starting amplitude, in (0, 1]; storing it again and agreeing peers raise it, up to "
                   "[merge] amplitude_cap (2 by default). Under recall's fade_threshold (0.05 by default) "
                   "the memory is stored faded: recall leaves it out unless --include-faded.")
@click.option("--phase", type=float, help="Stance as radians (0 affirms, pi denies).")
@click.option("--stance", type=str, help="affirm, uncertain or deny.")
@click.option("--supersedes", metavar="ID",
              help="One of this agent's own live memories that the new one corrects: retracted in the same commit.")
@agent_options
@json_option
@documented(StoreReport)
def store(content, category, tags, importance, phase, stance, supersedes, home, agent_id, as_json):
    """Store a memory and commit it on the agent's working branch.

    Storing identical content again, at a phase less than 45 degrees from the
    one this agent's memory holds, reinforces that memory; at another stance or
    phase it is a new memory. The result names the agent's own live memories
    the judge finds the new one contradicts; --supersedes ID retracts one of
    them in the same commit.

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.store(content, category=category, tags=list(tags), importance=importance,
                                 phase=phase, stance=stance, supersedes=supersedes)
    emit(result, as_json=as_json, text=_render_stored)


def _render_stored(r: dict) -> str:
    lines = [f"{'reinforced' if r['deduplicated'] else 'stored'} {r['id']} "
             f"(amplitude {r['amplitude']:.2f}, phase {r['phase']:.2f})"]
    if r["supersedes"]:
        lines.append(f"supersedes {r['supersedes']} (retracted)")
    for memory_id in r["contradicts"] or ():
        lines.append(f"contradicts {memory_id} (`cmem forget {memory_id}` if the new memory replaces it)")
    return "\n".join(lines)


def _render_hits(result: dict) -> str:
    hits, closest = result["hits"], result["closest"]
    if not hits:
        if closest is None:
            return "nothing recalled"
        return (f"nothing recalled at relevance {result['min_score']:.2f} or more; closest: "
                f"{closest['relevance']:.3f}  {closest['summary']}  ({closest['origin_agent']}, {closest['id']})")
    lines = []
    for n, h in enumerate(hits, 1):
        flag = f" [refuted by {h['refuted_by']} at {h['valid_until']}]" if h.get("refuted_by") else (
            " [disputed]" if h["disputed"] else "")
        lines.append(f"{n:2}. {h['score']:.3f}  {h['summary']}{flag}  ({h['origin_agent']}, {h['id']})")
    return "\n".join(lines)


@click.command()
@click.argument("query")
@click.option("-k", "k", default=5, show_default=True, type=int, help="How many memories.")
@click.option("--min-score", type=float,
              help="Least relevance (0 to 1) a hit has (default: [recall] min_score in cmem.toml, 0.15).")
@filter_options
@click.option("--as-of", help="Recall as of a commit, branch or timestamp.")
@click.option("--include-faded", is_flag=True, help="Include memories faded by age and weak amplitude (below the fade threshold).")
@click.option("--include-refuted", is_flag=True, help="Include memories a person's verdict refuted (marked).")
@click.option("--consensus", is_flag=True, help="Only what the collective promoted to main (after the last pull).")
@agent_options
@json_option
@documented(RecallReport)
def recall(query, k, min_score, tags, categories, origins, since, until, as_of, include_faded, include_refuted,
           consensus, home, agent_id, as_json):
    """Recall the memories that answer QUERY best. Never creates a commit.

    Hits are found by QUERY's words and its meaning; each has a relevance from 0
    to 1 (0.7 x cosine similarity + 0.3 x min(lexical, 1)^2, lexical being the
    share of QUERY's BM25 weight its words hold, above 1 for a word held often
    or a short memory) and is ranked by relevance times a damped resonance
    (amplitude, trust of its origin, recency, access count). Hits less relevant
    than --min-score are left out; when none passes, the closest is named.

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.recall(
                query, k=k, as_of=as_of, include_faded=include_faded, include_refuted=include_refuted,
                consensus=consensus, min_score=min_score, tags=list(tags), categories=list(categories),
                origins=list(origins), since=since, until=until)
    emit(result, as_json=as_json, text=_render_hits)


@click.command("list")
@click.option("--limit", default=20, show_default=True, type=int, help="Memories on one page.")
@click.option("--offset", default=0, show_default=True, type=int, help="Memories skipped before the page.")
@filter_options
@click.option("--include-refuted", is_flag=True, help="Include memories a person's verdict refuted.")
@agent_options
@json_option
@documented(ListReport)
def list_cmd(limit, offset, tags, categories, origins, since, until, include_refuted, home, agent_id, as_json):
    """List the memories recall can find, newest first, a page at a time.

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.list_memories(limit=limit, offset=offset, include_refuted=include_refuted,
                                         tags=list(tags), categories=list(categories), origins=list(origins),
                                         since=since, until=until)
    emit(result, as_json=as_json, text=_render_page)


def _render_page(page: dict) -> str:
    memories = page["memories"]
    if not memories:
        return f"no memories here ({page['total']} in all)"
    lines = [f"{m['created_at'][:19]}  {m['summary']}  ({m['origin_agent']}, {m['id']})" for m in memories]
    first = page["offset"] + 1
    lines.append(f"{first}-{first + len(memories) - 1} of {page['total']}")
    return "\n".join(lines)


@click.command()
@click.argument("memory_id")
@agent_options
@json_option
@documented(ShowReport)
def show(memory_id, home, agent_id, as_json):
    """Show one memory with its links, access count and dispute.

    A memory a verdict refuted shows what refuted it ("refuted_by": the dispute or
    the corrected memory) and since when ("valid_until").

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.show(memory_id)
    emit(result, as_json=as_json)


@click.command()
@click.argument("memory_id")
@agent_options
@json_option
@documented(ForgetReport)
def forget(memory_id, home, agent_id, as_json):
    """Retract one of the agent's own memories (kept in history, never deleted).

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.forget(memory_id)
    emit(result, as_json=as_json,
         text=lambda r: f"retracted {r['id']}" if r["changed"] else f"{r['id']} was already retracted")


@click.command()
@click.argument("memory_id")
@click.argument("text")
@agent_options
@json_option
@documented(UpdateReport)
def update(memory_id, text, home, agent_id, as_json):
    """Correct one of the agent's own memories: TEXT becomes a new memory whose parent is
    MEMORY_ID (same category, tags and importance), and MEMORY_ID is retracted, in one
    commit. History keeps both.

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.update(memory_id, text)
    emit(result, as_json=as_json, text=lambda r: f"updated {r['replaces']} -> {r['id']}")


@click.command()
@click.argument("memory_id")
@click.argument("why")
@click.argument("remote_name", metavar="[REMOTE]", required=False)
@agent_options
@json_option
@documented(ChallengeReport)
def challenge(memory_id, why, remote_name, home, agent_id, as_json):
    """Say a peer's memory is wrong. WHY, what this agent holds instead, is stored as its
    own counter-claim (its parent MEMORY_ID, which only its origin ever edits), the two are
    disputed and the case is pushed to collective/quarantine at once: a person resolves it
    (`cmem quarantine resolve`) like any other. Exit 3: recorded locally, not shared (run
    `cmem push`); 2: bad input, nothing written.

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.challenge(memory_id, why, remote=remote_name)
    emit(result, as_json=as_json,
         text=lambda r: f"challenged {r['challenges']} ({r['origin_agent']}) with {r['id']}: dispute {r['dispute']} "
                        f"{r['status']}, for a person to resolve")


@click.command()
@click.option("-n", "n", default=20, show_default=True, type=int, help="How many commits.")
@agent_options
@json_option
@documented(CommitRecord, many=True)
def log(n, home, agent_id, as_json):
    """The agent's commits, newest first.

    """
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            commits = agent.log(n)
    emit(commits, as_json=as_json,
         text=lambda cs: "\n".join(f"{c['commit'][:12]} {c['date']} {c['author']}: {c['message']}" for c in cs))


@click.command("index")
@agent_options
@json_option
def index_cmd(home, agent_id, as_json):
    """Bring the recall index and the judge's analyses up to the head.

    Recall and pull do this when they need to; run it ahead of a sync
    window so that the pull spends the window on what arrives.

    \b
    JSON: {"index": "current"|"updated"|"rebuilt", "count", "analysed"}
    """
    with cli_errors():
        with open_agent(home, agent_id) as agent, progress_bars(as_json=as_json) as progress:
            result = agent.prepare(progress=progress)
    emit(result, as_json=as_json,
         text=lambda r: f"index {r['index']}: {r['count']} memories, {r['analysed']} texts analysed")


def _render_status(s: dict) -> str:
    c = s["counts"]
    idx = s["index"]
    # stale is no fault (a forget or a pull moves the head without indexing; recall and list
    # bring the index to the head first), but the word alone says neither that nor the fix
    index_line = (f"{idx['count']} vectors, current" if idx["built"] and idx["current"] else
                  f"{idx['count']} vectors, stale: behind the head, without its latest changes; the next "
                  "recall brings it up to date (or `cmem index` now)" if idx["built"] else
                  "not built yet: the first recall builds it (or `cmem index` now)")
    return "\n".join([
        f"agent     {s['agent']} ({s['engine']}: {s['database']})",
        f"branch    {s['branch']} at {s['head'][:12]}",
        f"memories  {c['memories']} ({c['own']} own, {c['retracted']} retracted, "
        f"{c['disputed']} disputed, {c['absorbed']} absorbed)",
        f"peers     {c['peers']}, open cases {c['open_cases']}",
        f"stability {s['stability']:.3f}",
        f"index     {index_line}",
        f"events    {s['events']['outbox']} in the outbox, last publish {s['events']['last_publish'] or 'never'}",
    ] + ([f"verdicts  {c['awaiting_reviewer']} awaiting an authorised reviewer (cmem reviewers add)"]
         if c["awaiting_reviewer"] else [])
      + ([f"keys      {c['key_changes']} peer key change(s) refused (cmem agents)"] if c["key_changes"] else []))


@click.command()
@agent_options
@json_option
@plot_option("the field's stability, dream by dream,")
@documented(StatusReport)
def status(home, agent_id, as_json, plot_path):
    """Agent, engine, branch, head, counts, field stability and index state."""
    with cli_errors():
        with open_agent(home, agent_id) as agent:
            result = agent.status()
            runs = agent.stability_history() if plot_path else []
    emit(result, as_json=as_json, text=_render_status)
    write_plot(plot_path, "stability_over_time", runs)


COMMANDS = (init, store, recall, list_cmd, show, forget, update, challenge, log, index_cmd, status)
