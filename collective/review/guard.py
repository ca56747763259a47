"""Who may use the review page: the access token and the CSRF check.

The token (when the page is served with one) arrives once as `?token=` and is then
kept in a cookie; every request without it is refused. Every POST carries a CSRF
token tied to the browser's own random cookie by an HMAC under a secret that lives
only in this process, so another site can neither read nor forge it; a POST whose
Origin is not this page's is refused as well.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from urllib.parse import urlencode

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_COOKIE = "cmem_review_token"
CSRF_COOKIE = "cmem_review_csrf"
CSRF_FIELD = "csrf"
TOKEN_RE = re.compile(r"[A-Za-z0-9._~-]{12,256}")
TOKEN_RULE = "12 to 256 letters, digits or . _ ~ -"


class Refused(Exception):
    """A request the guard turns away: its status and one line saying why."""

    def __init__(self, status: int, reason: str):
        self.status = status
        self.reason = reason
        super().__init__(reason)


def valid_token(token: str | None) -> bool:
    return token is not None and TOKEN_RE.fullmatch(token) is not None


class Guard:
    def __init__(self, token: str | None = None):
        self.token = token
        self._secret = secrets.token_bytes(32)  # a restart invalidates every form already served

    # --- the access token -------------------------------------------------------------
    def admit(self, request: Request) -> Response | None:
        """None when the request may go on; else the response to send instead."""
        if self.token is None:
            return None
        offered = request.query_params.get("token")
        if offered is not None and hmac.compare_digest(offered.encode(), self.token.encode()):
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response = RedirectResponse(target, status_code=303)  # the token leaves the address bar
            response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
            return response
        kept = request.cookies.get(TOKEN_COOKIE, "")
        if hmac.compare_digest(kept.encode(), self.token.encode()):
            return None
        return PlainTextResponse("a token is required: open the address `cmem review` printed\n", status_code=401)

    # --- CSRF -------------------------------------------------------------------------
    def browser_key(self, request: Request) -> tuple[str, bool]:
        """The browser's CSRF cookie, and whether it is new (to be set on the response)."""
        key = request.cookies.get(CSRF_COOKIE, "")
        if re.fullmatch(r"[A-Za-z0-9_-]{32,64}", key):
            return key, False
        return secrets.token_urlsafe(32), True

    def csrf_token(self, key: str) -> str:
        return hmac.new(self._secret, key.encode(), hashlib.sha256).hexdigest()

    async def checked_form(self, request: Request) -> FormData:
        """The POSTed form, once its CSRF token and origin are this page's; else Refused(403)."""
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
            raise Refused(403, "refused: the form came from another site")
        form = await request.form()
        key = request.cookies.get(CSRF_COOKIE, "")
        sent = form.get(CSRF_FIELD)
        if not key or not isinstance(sent, str) or not hmac.compare_digest(sent, self.csrf_token(key)):
            raise Refused(403, "refused: the form's CSRF token is missing or wrong (reload the page)")
        return form


class TokenGate:
    """ASGI middleware: every HTTP request passes `Guard.admit` first."""

    def __init__(self, app: ASGIApp, guard: Guard):
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.guard.admit(Request(scope))
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)
