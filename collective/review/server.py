"""Serving the review page with uvicorn on a socket bound here (so a bad address or a
port in use is one line, not a server's log), loopback unless a token guards it, and
only to requests whose Host is one of the page's own names."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import signal
import socket
import threading
from typing import TYPE_CHECKING, Callable, ContextManager, Sequence

from ..errors import BadInput, CollectiveError
from .guard import TOKEN_RULE, host_form, valid_token

if TYPE_CHECKING:
    from ..agent import Agent


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_NAME_RE = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*")


class CannotListen(CollectiveError, OSError):
    """The address could not be bound (in use, not this machine's, not permitted): exit 1."""


def check_bind(host: str, token: str | None) -> str:
    """The address to bind, as an IP address; a non-loopback one needs a valid token.
    Names other than `localhost` are refused rather than looked up (no DNS from here)."""
    address = "127.0.0.1" if host == "localhost" else host
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise BadInput("host", f"{host!r} is not an IP address (or localhost)") from None
    if token is not None and not valid_token(token):
        raise BadInput("token", f"must be {TOKEN_RULE}")
    if not ip.is_loopback and token is None:
        raise BadInput("token", f"binding {host} (not loopback) needs a token: --token or $CMEM_REVIEW_TOKEN")
    return str(ip)


def page_hosts(address: str, allow_hosts: Sequence[str] = ()) -> frozenset[str]:
    """The names a request's Host may carry: the address the page listens on, loopback's names
    when it listens there (a loopback address, or every address), and each name in `allow_hosts`
    (a host name or IP address, without a port)."""
    names = {host_form(address)}
    ip = ipaddress.ip_address(address)
    if ip.is_loopback or ip.is_unspecified:
        names.update(LOOPBACK_NAMES)
    for name in allow_hosts:
        if not (_is_ip(name) or HOST_NAME_RE.fullmatch(name)):
            raise BadInput("allow-host", f"{name!r} is not a host name or IP address (give it without a port)")
        names.add(host_form(name))
    return frozenset(names)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") and name.endswith("]") else name)
    except ValueError:
        return False
    return True


class ReviewServer:
    """The page on host:port (0 picks a free port) until `stop()`, or `seconds` pass; it
    answers requests for its own address and loopback's names, and `allow_hosts`."""

    def __init__(self, open_agent: Callable[[str | None], ContextManager[Agent]], *, reviewer: str,
                 agent_names: Callable[[], list[str]], host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None, allow_hosts: Sequence[str] = ()):
        self.address = check_bind(host, token)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise BadInput("port", f"must be a whole number from 0 to 65535, got {port!r}")
        self.hosts = page_hosts(self.address, allow_hosts)
        self.token = token
        from .app import build_app
        self._socket = _listen(self.address, port)  # first: the Host check needs the port it got
        try:
            self._server = _server(build_app(open_agent, reviewer=reviewer, token=token, hosts=self.hosts,
                                             port=self.port, agent_names=agent_names))
        except BaseException:
            self._socket.close()
            raise

    @property
    def port(self) -> int:
        return self._socket.getsockname()[1]

    @property
    def url(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"http://{host}:{self.port}/"

    @property
    def open_url(self) -> str:
        """The address a person opens: with the token, which the page then keeps in a cookie."""
        return self.url + (f"?token={self.token}" if self.token else "")

    def run(self, seconds: float | None = None) -> None:
        """Serve until SIGINT or SIGTERM (uvicorn's handlers), `stop()`, or `seconds`."""
        asyncio.run(self._serve(seconds))

    async def _serve(self, seconds: float | None) -> None:
        serving = asyncio.ensure_future(self._server.serve(sockets=[self._socket]))
        if seconds is not None:
            done, _ = await asyncio.wait({serving}, timeout=seconds)
            if not done:
                self.stop()
        await serving

    def stop(self) -> None:
        self._server.should_exit = True

    def close(self) -> None:
        self._socket.close()


def _server(app):
    """uvicorn's server; a signal stops it and is not raised again afterwards (uvicorn's own
    handlers do, which would end the command by the signal rather than with "stopped")."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self):
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    # log_config=None: the process's logging stays as it is (warnings and errors reach stderr)
    return Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="off",
                                 timeout_graceful_shutdown=5))


def _listen(address: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(64)
    except OSError as e:
        sock.close()
        raise CannotListen(f"cannot listen on {address}:{port}: {e.strerror or e}") from None
    return sock
