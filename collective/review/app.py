"""The review web page: open disputes and pending promotions, and a person's decisions on them.

Server-rendered HTML forms over the Agent facade, nothing else: each request opens
the agent, makes its calls and closes it (so what other processes wrote shows at
once), in a worker thread. A decision is a POST (CSRF-checked) answered by a
redirect to the page showing its result, which says when it reaches the other
agents (decisions.py); a person's own dispute between two memories starts on the
memories page (memories.py). No line the page shows names a command or a flag.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, TypeVar

import jinja2
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route

from ..errors import BadInput, CollectiveError, NotFound, NotShared, one_line
from ..plots import Unavailable
from . import present
from .decisions import VerdictViews, base_path, reach
from .guard import CSRF_COOKIE, CSRF_FIELD, Guard, Refused, TokenGate
from .memories import MemoryViews

if TYPE_CHECKING:
    from ..agent import Agent

T = TypeVar("T")
TEMPLATES = Path(__file__).with_name("templates")
DISPUTE_STATUSES = ("open", "escalated", "pending", "resolved", "all")
PROMOTION_STATUSES = ("pending", "promoted", "rejected", "all")
HISTORY_LIMIT = 20


class ReviewPage(VerdictViews, MemoryViews):
    """The page's views. `open_agent(name)` gives a context manager over an agent of the
    home (None: the one the page serves), `agent_names()` names them all; `reviewer` names
    the reviewer key every decision is signed with. Under /agents/NAME/ every page is
    about that agent; elsewhere about the one served."""

    def __init__(self, open_agent: Callable[[str | None], ContextManager[Agent]], *, reviewer: str, guard: Guard,
                 agent_names: Callable[[], list[str]]):
        self.open_agent = open_agent
        self.agent_names = agent_names
        self.reviewer = reviewer
        self.guard = guard
        self.templates = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                                            undefined=jinja2.StrictUndefined)
        self.templates.filters["short"] = present.short
        self.templates.filters["closeness"] = present.closeness
        self.templates.globals["when"] = _when

    # --- plumbing ----------------------------------------------------------------------
    async def agent_call(self, request: Request, work: Callable[[Agent], T]) -> T:
        """work(agent) in a worker thread, on the agent the request's path names."""
        name = request.path_params.get("agent_id")
        if name is not None and name not in await run_in_threadpool(self.agent_names):
            raise NotFound("agent", f"no agent {name!r} in this home")
        def run() -> T:
            with self.open_agent(name) as agent:
                return work(agent)
        return await run_in_threadpool(run)

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        key, new = self.guard.browser_key(request)
        context["error"] = present.plain(context["error"]) if context.get("error") else None
        html = self.templates.get_template(name).render({
            "agent": None, "entered": {}, "status_filter": None, "searched": {}, "agent_names": [],
            "reach": None, "opened": set(), **context, "reviewer": self.reviewer,
            "csrf_field": CSRF_FIELD, "csrf": self.guard.csrf_token(key), "base": base_path(request),
            "notice": request.query_params.get("done"), "unshared": request.query_params.get("unshared"),
            "standing_count": request.query_params.get("standing")})
        response = HTMLResponse(html, status_code=status)
        if new:
            response.set_cookie(CSRF_COOKIE, key, httponly=True, samesite="strict")
        return response

    def problem(self, request: Request, status: int, message: str) -> HTMLResponse:
        return self.render(request, "problem.html", status=status, message=present.plain(message))

    async def listing(self, request: Request, heading: str, statuses: tuple[str, ...],
                      read: Callable[[Agent, str | None], list[dict]], key: str) -> Response:
        """A list page filtered by ?status= (its first status by default; "all" for every one),
        showing `_<key>_table.html`."""
        status = request.query_params.get("status", statuses[0])
        if status not in statuses:
            return self.problem(request, 400, f"status: must be one of {', '.join(statuses)}")
        def run(agent: Agent) -> dict:
            found = read(agent, None if status == "all" else status)
            return {"agent": agent.agent_id, key: found, "opened": _opened(found if key == "disputes" else [])}
        found = await self.agent_call(request, run)
        return self.render(request, "listing.html", status_filter=status, heading=heading, statuses=statuses,
                           path=request.url.path, table=f"_{key}_table.html", **_searched(request, found))

    async def act(self, request: Request, call: Callable[[Agent], Any], *, done: str,
                  again: Callable[..., Any], entered: dict, page: str | None = None) -> Response:
        """Make a decision; then redirect to its page (the one posted to, unless named:
        POST-redirect-GET), or show that page again with the error and what was typed when
        the input was bad."""
        page = page or request.url.path
        try:
            await self.agent_call(request, call)
        except NotShared:
            return RedirectResponse(f"{page}?done={done}&unshared=1", status_code=303)
        except BadInput as e:
            if isinstance(e, NotFound):
                raise
            return await again(request, error=one_line(e), status=400, entered=entered)
        return RedirectResponse(f"{page}?done={done}", status_code=303)

    # --- pages -------------------------------------------------------------------------
    async def overview(self, request: Request) -> Response:
        def read(agent: Agent) -> dict:
            disputes = agent.disputes("open")
            return {"agent": agent.agent_id, "disputes": disputes, "promotions": agent.promotions("pending"),
                    "opened": _opened(disputes),
                    "reach": reach(agent, [], shared=not request.query_params.get("unshared"))
                    if request.query_params.get("done") else None}
        return self.render(request, "overview.html", **_searched(request, await self.agent_call(request, read)))

    async def every_agent(self, request: Request) -> Response:
        """Every agent of the home: its open disputes and pending promotions, and whether it
        honours this reviewer (a verdict signed here waits where it does not)."""
        def read() -> list[dict]:
            found = []
            for name in self.agent_names():
                with self.open_agent(name) as agent:
                    found.append({"name": name, "disputes": agent.disputes("open"),
                                  "promotions": agent.promotions("pending"),
                                  "honours": self.reviewer in {r["name"] for r in agent.reviewers()}})
            return found
        return self.render(request, "agents.html", agents=await run_in_threadpool(read))

    async def pictures(self, request: Request) -> Response:
        """Trust over time, the field's stability dream by dream, and the last dream's clusters,
        drawn on the server as SVG (the page needs no script)."""
        def read(agent: Agent) -> dict:
            from .. import plots
            try:
                drawn = agent.dream_map()
            except NotFound:
                drawn = {"run": None, "points": [], "clusters": [], "orders": {}}
            svgs = {"trust": plots.trust_over_time(agent.trust_history()),
                    "stability": plots.stability_over_time(agent.stability_history()),
                    "clusters": plots.dream_clusters(drawn["points"], drawn["clusters"], drawn["orders"],
                                                     title=f"The last dream's clusters ({drawn['run'] or 'none yet'})")}
            return {"agent": agent.agent_id, "pictures": {k: _inline(v) for k, v in svgs.items()}}
        try:
            found = await self.agent_call(request, read)
        except Unavailable as e:
            return self.problem(request, 501, one_line(e))
        return self.render(request, "pictures.html", **found)

    async def dispute_list(self, request: Request) -> Response:
        return await self.listing(request, "Disputes", DISPUTE_STATUSES, lambda a, s: a.disputes(s), "disputes")

    async def promotion_list(self, request: Request) -> Response:
        return await self.listing(request, "Promotions", PROMOTION_STATUSES, lambda a, s: a.promotions(s),
                                  "promotions")

    async def dispute(self, request: Request, *, error: str | None = None, status: int = 200,
                      entered: dict | None = None, conflict: dict | None = None) -> Response:
        """One dispute; `conflict`: the person's verdict was not recorded, a verdict they had not
        seen stands (shown first, with Supersede and Reopen)."""
        dispute_id = request.path_params["dispute_id"]
        told = request.query_params.get("done") is not None
        def read(agent: Agent) -> dict:
            found = agent.dispute(dispute_id)
            held = [m for side in ("a", "b") for m in _side_rows(found[side])]
            rows = {m: agent.side_row(m) for m in dict.fromkeys(held)}
            phases = [agent.stance_of(found[side]["content"], getattr(rows[found[side]["memory"]], "stance", None),
                                      getattr(rows[found[side]["memory"]], "phase", None)) for side in ("a", "b")]
            return {"agent": agent.agent_id, "d": found, "trust": agent.trust_scores(),
                    "stances": present.stances(*phases),
                    "standing": {side: present.standing(found[side]["origin_agent"], found[side]["content"],
                                                        found[side].get("copies", []),
                                                        {m: r.content for m, r in rows.items() if r is not None})
                                 for side in ("a", "b")},
                    "diff": present.word_diff(found["a"]["content"], found["b"]["content"]),
                    "histories": {m: agent.history(m, HISTORY_LIMIT) for m in dict.fromkeys(held)},
                    "opened": _opened([found]),
                    "reach": reach(agent, found["agents"], shared=not request.query_params.get("unshared"))
                    if told else None}
        found = await self.agent_call(request, read)
        return self.render(request, "dispute.html", status=status, error=error, entered=entered or {},
                           conflict=conflict, mark=present.verdict_mark(found["d"]["resolution"]), **found)

    async def promotion(self, request: Request, *, error: str | None = None, status: int = 200,
                        entered: dict | None = None) -> Response:
        memory_id = request.path_params["memory_id"]
        def read(agent: Agent) -> dict:
            return {"agent": agent.agent_id, "p": agent.proposal(memory_id),
                    "history": agent.history(memory_id, HISTORY_LIMIT)}
        return self.render(request, "promotion.html", status=status, error=error, entered=entered or {},
                           **await self.agent_call(request, read))

    async def decide(self, request: Request) -> Response:
        memory_id = request.path_params["memory_id"]
        form = await self.guard.checked_form(request)
        decision, note = str(form.get("decision", "")), str(form.get("note", ""))
        if decision not in ("approve", "reject"):
            return await self.promotion(request, error="decision: must be approve or reject", status=400,
                                        entered={"note": note})
        return await self.act(request, lambda agent: agent.decide_promotion(
            memory_id, approve=decision == "approve", note=note, by=self.reviewer),
            done=decision, again=self.promotion, entered={"note": note})


def _opened(disputes: list[dict]) -> set[str]:
    """The disputes among these that a reviewer opened (its standing reopening `opens` it)
    rather than reopened after a verdict."""
    return {d["dispute"] for d in disputes if (d.get("reopened") or {}).get("opens")}


def _inline(svg: bytes) -> Markup:
    """An SVG document as an element of the page (matplotlib escapes the text it draws)."""
    text = svg.decode("utf-8")
    return Markup(text[text.index("<svg"):])


def _when(stamp: str | None) -> Markup:
    """A time as "3 h ago", the exact time on hover."""
    if not stamp:
        return Markup("")
    return Markup(f'<time datetime="{escape(stamp)}" title="{escape(present.exact(stamp))}">'
                  f'{escape(present.ago(stamp))}</time>')


def _searched(request: Request, found: dict) -> dict:
    """The disputes found, narrowed by ?q= (words in either claim) and ?agent= (one of its
    agents); with the agents to choose from and what was asked."""
    disputes = found.get("disputes")
    if disputes is None:
        return found
    q, agent = request.query_params.get("q", "").strip(), request.query_params.get("agent", "")
    names = sorted({name for d in disputes for name in d["agents"]})
    if q:
        disputes = [d for d in disputes if q.lower() in f'{d["a"]["content"]} {d["b"]["content"]}'.lower()]
    if agent:
        disputes = [d for d in disputes if agent in d["agents"]]
    searched = {k: v for k, v in (("q", q), ("agent", agent)) if v}
    return {**found, "disputes": disputes, "agent_names": names, "searched": searched}


def _side_rows(side: dict) -> list[str]:
    """The rows a side stands on here: its claim and every copy of it."""
    return [side["memory"], *(c["memory"] for c in side.get("copies", ()))]


def build_app(open_agent: Callable[[str | None], ContextManager[Agent]], *, reviewer: str, hosts: frozenset[str],
              port: int, agent_names: Callable[[], list[str]], token: str | None = None) -> Starlette:
    """The ASGI app: every request passes the gate (its Host is one of `hosts`, on `port` or
    none; then the token); every POST the CSRF check. The served agent's pages at /, every
    agent's under /agents/NAME/, and all of them at a glance at /agents."""
    guard = Guard(token, hosts=hosts, port=port)
    page = ReviewPage(open_agent, reviewer=reviewer, guard=guard, agent_names=agent_names)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        return page.problem(request, exc.status, exc.reason)

    async def not_found(request: Request, exc: Exception) -> Response:
        return page.problem(request, 404, one_line(exc) if isinstance(exc, CollectiveError) else "no such page")

    async def failed(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, CollectiveError)
        return page.problem(request, 400 if isinstance(exc, BadInput) else 500, one_line(exc))

    pages = [
        Route("/", page.overview),
        Route("/disputes", page.dispute_list),
        Route("/disputes/bulk", page.resolve_many, methods=["POST"]),
        Route("/disputes/{dispute_id}", page.dispute),
        Route("/disputes/{dispute_id}", page.resolve, methods=["POST"]),
        Route("/disputes/{dispute_id}/reopen", page.reopen, methods=["POST"]),
        Route("/memories", page.memories),
        Route("/memories/dispute", page.open_dispute, methods=["POST"]),
        Route("/pictures", page.pictures),
        Route("/promotions", page.promotion_list),
        Route("/promotions/{memory_id}", page.promotion),
        Route("/promotions/{memory_id}", page.decide, methods=["POST"]),
    ]
    routes = [*pages, Route("/agents", page.every_agent), Mount("/agents/{agent_id}", routes=pages)]
    handlers = {Refused: refused, NotFound: not_found, 404: not_found, CollectiveError: failed}
    return Starlette(routes=routes, middleware=[Middleware(TokenGate, guard=guard)], exception_handlers=handlers)

