"""A person's verdicts and reopenings on the review page, and where each reaches.

Before a verdict (or a reopening) is recorded the page takes what reviewers shared
on the commons, as a pull takes the quarantine (Agent.take_verdicts): a verdict
another reviewer gave meanwhile, on this agent's page or another's, then stands
here, and the page records nothing but says whose verdict stands and offers to
supersede it with the person's own, or to reopen it. Once recorded, a decision is
shared on the commons at once; each other agent takes it at its next pull.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..errors import BadInput, CollectiveError, NotFound, NotShared, one_line
from . import present

if TYPE_CHECKING:
    from ..agent import Agent

RESOLVED = "resolved"


def base_path(request: Request) -> str:
    """Where the pages of the agent a request is about start: "" for the one served."""
    name = request.path_params.get("agent_id")
    return f"/agents/{name}" if name is not None else ""


def take_verdicts(agent: Agent) -> bool:
    """What reviewers shared on the commons, taken here; False when it could not be read
    (the decision is then recorded here, and the share that follows says so)."""
    try:
        agent.take_verdicts()
    except CollectiveError:
        return False
    return True


def reach(agent: Agent, involved: list[str], *, shared: bool) -> str:
    """When a decision recorded here reaches the other agents: the dispute's agents and the
    peers this agent knows, each at its next pull."""
    others = {p["agent"] for p in agent.peers() if not p.get("held")} | set(involved)
    return present.reach(agent.agent_id, sorted(others - {agent.agent_id}), shared=shared)


class VerdictViews:
    """Mixed into ReviewPage: the views that record verdicts and reopenings."""

    reviewer: str
    guard: Any
    agent_call: Callable[..., Any]
    dispute: Callable[..., Any]
    problem: Callable[..., Response]

    async def resolve(self, request: Request) -> Response:
        """A verdict, unless one the person has not seen stands (taken from the commons first):
        then nothing is recorded and the page shows it (409), with Supersede and Reopen.
        `supersede` with `over` (the verdict the person saw) replaces that verdict."""
        dispute_id = request.path_params["dispute_id"]
        form = await self.guard.checked_form(request)
        keep, note = str(form.get("keep", "")), str(form.get("note", ""))
        text = str(form.get("text", "")).strip() or None
        supersede, over = form.get("supersede") == "1", str(form.get("over", ""))
        mine = {"keep": keep, "note": note, "text": text}
        if keep == "merged" and text is None:  # said before the commons is asked
            return await self.dispute(request, error="text: merged needs the corrected statement: write it in "
                                                      "“Corrected statement”", status=400, entered=mine)

        def run(agent: Agent) -> dict | None:
            agent.check_decision(dispute_id, keep=keep, text=text if keep == "merged" else None, note=note)
            take_verdicts(agent)  # bad input is said first, with nothing taken
            found = agent.dispute(dispute_id)
            standing = found["resolution"] if found["status"] == RESOLVED else None
            if standing is not None and not (supersede and present.verdict_mark(standing) == over):
                return {"mine": mine}  # a verdict the person has not seen stands: nothing is recorded
            if supersede and standing is None:
                return {"mine": mine, "gone": True}  # withdrawn meanwhile: the dispute is open again
            agent.resolve_dispute(dispute_id, keep=keep, text=text if keep == "merged" else None, note=note,
                                  by=self.reviewer, supersede=supersede)
            return None

        return await self._decided(request, run, done="supersede" if supersede else "verdict", entered=mine)

    async def reopen(self, request: Request) -> Response:
        """Withdraw the verdict standing, unless another than the one the person saw (`over`)
        stands by now (taken from the commons first): then the page shows that one (409)."""
        dispute_id = request.path_params["dispute_id"]
        form = await self.guard.checked_form(request)
        note, over = str(form.get("note", "")), str(form.get("over", ""))

        def run(agent: Agent) -> dict | None:
            agent.check_decision(dispute_id, note=note)
            take_verdicts(agent)
            found = agent.dispute(dispute_id)
            if over and found["status"] == RESOLVED and present.verdict_mark(found["resolution"]) != over:
                return {"mine": None}
            agent.reopen_dispute(dispute_id, note=note, by=self.reviewer)
            return None

        return await self._decided(request, run, done="reopening", entered={"reopen_note": note},
                                   page=f"{base_path(request)}/disputes/{dispute_id}")

    async def _decided(self, request: Request, run: Callable[[Agent], dict | None], *, done: str, entered: dict,
                       page: str | None = None) -> Response:
        """Run a decision; redirect to its page (POST-redirect-GET), or show the dispute again:
        with the verdict that stands when `run` found one the person had not seen (409), with
        the error and what was typed when the input was bad (400)."""
        page = page or request.url.path
        try:
            conflict = await self.agent_call(request, run)
        except NotShared:
            return RedirectResponse(f"{page}?done={done}&unshared=1", status_code=303)
        except BadInput as e:
            if isinstance(e, NotFound):
                raise
            return await self.dispute(request, error=one_line(e), status=400, entered=entered)
        if conflict is not None:
            error = "No verdict stands on this dispute any more: it was reopened meanwhile. Decide it again below." \
                if conflict.get("gone") else None
            return await self.dispute(request, status=409, error=error, entered=entered,
                                      conflict=None if conflict.get("gone") else conflict)
        return RedirectResponse(f"{page}?done={done}", status_code=303)

    async def resolve_many(self, request: Request) -> Response:
        """One verdict, "both stand", on each dispute selected: the bulk action for false
        positives. Each is signed and recorded on its own; the first bad one stops the rest.
        Those another reviewer decided meanwhile (taken from the commons first) are left as
        they stand, and the page says how many."""
        form = await self.guard.checked_form(request)
        chosen, note = [str(v) for v in form.getlist("dispute")], str(form.get("note", ""))
        if not chosen:
            return self.problem(request, 400, "dispute: select at least one")

        def run(agent: Agent) -> tuple[int, int, bool]:
            agent.check_decision(chosen[0], keep="both", note=note)
            take_verdicts(agent)
            shared, done, standing = True, 0, 0
            for dispute_id in chosen:
                if agent.dispute(dispute_id)["status"] == RESOLVED:
                    standing += 1
                    continue
                try:
                    agent.resolve_dispute(dispute_id, keep="both", note=note, by=self.reviewer)
                except NotShared:
                    shared = False
                done += 1
            return done, standing, shared
        try:
            done, standing, shared = await self.agent_call(request, run)
        except BadInput as e:
            if isinstance(e, NotFound):
                raise
            return self.problem(request, 400, one_line(e))
        told = f"{done}+verdict{'' if done == 1 else 's'}" + (f"&standing={standing}" if standing else "")
        return RedirectResponse(f"{base_path(request)}/?done={told}" + ("" if shared else "&unshared=1"),
                                status_code=303)
