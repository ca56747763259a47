"""Who may use the review page: the Host names it answers, the access token and the CSRF check.

Every request first names one of the page's own hosts in its Host header (the address
it listens on, loopback's names on loopback, and any name it was given): a page on
another site whose DNS name an attacker points at this machine (DNS rebinding) sends
its own name, and is refused before it can read a form or post one. The token (when the page is served with one) arrives once as `?token=` and is then
kept in a cookie; every request without it is refused. Every POST carries a CSRF
token tied to the browser's own random cookie by an HMAC under a secret that lives
only in this process, so another site can neither read nor forge it; a POST whose
Origin is not this page's is refused as well.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
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
# A Host header: a name or IPv4 address, or a bracketed IPv6 address; then an optional port.
HOST_RE = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?")


class Refused(Exception):
    """A request the guard turns away: its status and one line saying why."""

    def __init__(self, status: int, reason: str):
        self.status = status
        self.reason = reason
        super().__init__(reason)


def valid_token(token: str | None) -> bool:
    return token is not None and TOKEN_RE.fullmatch(token) is not None


class Guard:
    """`hosts`: the names (lower case, IPv6 in brackets) a request's Host may carry, with no
    port or `port`."""

    def __init__(self, token: str | None = None, *, hosts: frozenset[str], port: int):
        self.token = token
        self.hosts, self.port = hosts, port
        self._secret = secrets.token_bytes(32)  # a restart invalidates every form already served

    # --- the Host header --------------------------------------------------------------
    def host_allowed(self, header: str | None) -> bool:
        found = HOST_RE.fullmatch(header or "")
        if found is None:
            return False
        name, port = found.group(1).lower(), found.group(2)
        return host_form(name) in self.hosts and (port is None or int(port) == self.port)

    # --- the access token -------------------------------------------------------------
    def admit(self, request: Request) -> Response | None:
        """None when the request may go on; else the response to send instead."""
        if not self.host_allowed(request.headers.get("host")):
            return PlainTextResponse("refused: this page answers only to the host names it was started for "
                                     "(cmem review --allow-host adds one)\n", status_code=400)
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


def host_form(name: str) -> str:
    """A host name as a Host header carries it, for comparing: lower case, an IPv6 address
    compressed and in brackets, an IPv4 address as it is."""
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return name.lower()
    return f"[{address}]" if address.version == 6 else str(address)


class TokenGate:
    """ASGI middleware: every HTTP request passes `Guard.admit` (Host, then token) first."""

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
