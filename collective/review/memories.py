"""The memories an agent holds, searched on the review page, and a person's own dispute
between two of them: the claims a merge never paired (too far apart in words, met in no
pull) that a person sees disagree. Picked on the page with a reason, the pair becomes an
ordinary open dispute in the queue, signed as the reviewer (Agent.open_dispute)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..errors import BadInput, NotFound, NotShared, one_line
from .decisions import base_path

if TYPE_CHECKING:
    from ..agent import Agent

SHOWN = 50  # memories a page lists: the newest, or the closest to a search


class MemoryViews:
    """Mixed into ReviewPage: the memories page and the dispute a person opens from it."""

    reviewer: str
    guard: Any
    agent_call: Callable[..., Any]
    render: Callable[..., Response]

    async def memories(self, request: Request, *, error: str | None = None, status: int = 200,
                       entered: dict | None = None) -> Response:
        """The newest memories held here, or with ?q= those recall finds closest (by meaning
        and words); ?agent= keeps one agent's. Each can be picked for a dispute."""
        q, origin = request.query_params.get("q", "").strip(), request.query_params.get("agent", "")

        def read(agent: Agent) -> dict:
            origins = [origin] if origin else None
            if q:
                found = [hit.to_dict() for hit in agent.recall(q, k=SHOWN, origins=origins)]
            else:
                found = agent.list_memories(limit=SHOWN, origins=origins)["memories"]
            names = sorted({agent.agent_id, *(p["agent"] for p in agent.peers())})
            return {"agent": agent.agent_id, "memories": found, "agent_names": names}
        searched = {k: v for k, v in (("q", q), ("agent", origin)) if v}
        return self.render(request, "memories.html", status=status, error=error, entered=entered or {},
                           searched=searched, query=request.url.query, **await self.agent_call(request, read))

    async def open_dispute(self, request: Request) -> Response:
        """A dispute between the two memories picked, with the reason given; its page next."""
        form = await self.guard.checked_form(request)
        chosen, why = [str(v) for v in form.getlist("memory")], str(form.get("why", ""))
        entered = {"why": why, "memories": chosen}
        if len(chosen) != 2:
            return await self.memories(request, error=f"memory: pick two memories to dispute ({len(chosen)} picked)",
                                       status=400, entered=entered)
        unshared = ""
        try:
            opened = await self.agent_call(request, lambda agent: agent.open_dispute(
                chosen[0], chosen[1], why=why, by=self.reviewer))
        except NotShared as e:
            opened, unshared = e.result, "&unshared=1"
        except BadInput as e:
            if isinstance(e, NotFound):
                raise
            return await self.memories(request, error=one_line(e), status=400, entered=entered)
        return RedirectResponse(f"{base_path(request)}/disputes/{opened['dispute']}?done=opened{unshared}",
                                status_code=303)
