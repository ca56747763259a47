"""The NATS side: connection options (several servers, user/password or a credentials
file, TLS, reconnects), the JetStream stream of a collective and an agent's durable
consumer on it.

One stream per collective, `CMEM_<collective>`, holding `cmem.<collective>.>` with
bounded retention; one durable consumer per agent, `cmem-<agent>`, so an agent that
was away replays what it missed. A site may run one server or a JetStream cluster:
list every server; the stream's `replicas` says how many keep each event.
"""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Mapping
from urllib.parse import urlsplit

from collective.config import Home, setting
from collective.errors import BadInput
from collective.model.events import subject_token, validate_collective
from collective.runtime.retry import backoff

log = logging.getLogger("cmem.events")


SCHEMES = ("nats", "tls", "ws", "wss")


def url_problem(url: str) -> str | None:
    """What makes `url` no NATS server address (scheme, host, port 1-65535), or None."""
    scheme = url.split("://", 1)[0] if "://" in url else None
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed [IPv6 address
        scheme = None
    if scheme not in SCHEMES:
        return f"{url!r} is not a NATS URL (nats://host:port)"
    if not parts.hostname:
        return f"{url!r} names no host (nats://host:port)"
    try:
        port = parts.port
    except ValueError:  # no number, or past 65535
        port = 0
    if port == 0 or (port is None and parts.netloc.endswith(":")):
        return f"{url!r}: the port must be a number from 1 to 65535"
    return None


@dataclass
class Backoff:
    """Capped, jittered waits between failed attempts (publish, fetch, JetStream not ready):
    0.1 s, 0.2 s, 0.4 s, ... up to `cap`, each stretched by up to half again at random."""

    base: float = 0.1
    cap: float = 10.0
    jitter: float = 0.5
    failures: int = 0
    rand: Callable[[], float] = random.random

    def next_wait(self) -> float:
        self.failures += 1
        return backoff(self.failures, base=self.base, cap=self.cap, jitter=self.jitter, rand=self.rand)

    def reset(self) -> None:
        self.failures = 0


DEFAULT_URL = "nats://127.0.0.1:4222"


@dataclass(frozen=True)
class NatsOptions:
    """[nats] in cmem.toml (read by collective.config's loader); the servers come from --nats,
    else $CMEM_NATS_URL or `nats_url` (comma-separated), else `servers` here."""

    TABLE: ClassVar[str] = "nats"

    servers: tuple[str, ...] = setting((DEFAULT_URL,), "NATS server URLs, every server of a cluster",
                                       one_or_many=True)
    collective: str = "default"            # the top-level `collective` (Home.collective)
    user: str | None = setting(None, "user name (with password)", kind=str)
    password: str | None = setting(None, "password of that user", kind=str)
    creds: str | None = setting(None, "a NATS credentials file (JWT + nkey seed), instead of user and password",
                                kind=str)
    tls_ca: str | None = setting(None, "CA certificate that signed the servers' certificates", kind=str)
    tls_cert: str | None = setting(None, "client certificate", kind=str)
    tls_key: str | None = setting(None, "its private key", kind=str)
    connect_timeout: float = setting(2.0, "seconds to wait for a server to answer a connect")
    reconnect_wait: float = setting(0.5, "seconds between attempts to reconnect")
    max_age_days: float = setting(7.0, "retention: events older than this leave the stream")
    max_msgs: int = setting(1_000_000, "... and beyond this many events, the oldest")
    replicas: int = setting(1, "copies of each event the stream keeps (3 on a JetStream cluster)")
    duplicate_window_s: float = setting(120.0, "seconds in which JetStream drops a resent Nats-Msg-Id")
    extra: Mapping[str, Any] = field(default_factory=dict)  # more nats.connect() options, from code only

    @classmethod
    def from_home(cls, home: Home, *, servers: tuple[str, ...] = (), collective: str | None = None) -> "NatsOptions":
        """[nats] of the home with the command line's servers and collective (None: not given) over it."""
        options = home.section(cls)
        env = home.setting("nats_url")
        if not servers and env:
            servers = tuple(s.strip() for s in env.split(",") if s.strip())
        servers = servers or options.servers or (DEFAULT_URL,)
        for url in servers:  # said up front: the client's own refusal came only once connecting, as an outage
            problem = url_problem(url)
            if problem:
                raise BadInput("nats", problem)
        return replace(options, servers=tuple(servers), collective=validate_collective(collective or home.collective))

    @property
    def stream(self) -> str:
        return f"CMEM_{self.collective}"

    @property
    def subjects(self) -> str:
        return f"cmem.{self.collective}.>"

    def durable(self, agent: str) -> str:
        return "cmem-" + subject_token(agent).replace("~", "_")

    def tls_context(self) -> ssl.SSLContext | None:
        if not (self.tls_ca or self.tls_cert):
            return None
        context = ssl.create_default_context(cafile=self.tls_ca)
        if self.tls_cert:
            context.load_cert_chain(self.tls_cert, self.tls_key)
        return context


async def connect(options: NatsOptions, *, name: str, reconnect: bool = True):
    """A NATS client that reconnects for ever (to any listed server); callbacks log."""
    import nats

    quiet = [not reconnect]  # one warning per outage, not one per attempt; a one-off command says it once, failing

    async def disconnected():
        log.info("NATS disconnected")

    async def reconnected():
        quiet[0] = False
        log.info("NATS reconnected")

    async def error(e):
        log.log(logging.DEBUG if quiet[0] else logging.WARNING, "NATS: %s: %s (retrying)", type(e).__name__, e)
        quiet[0] = True

    kwargs: dict[str, Any] = {
        "servers": list(options.servers), "name": name, "connect_timeout": options.connect_timeout,
        # reconnect=False: two tries per server, then NoServersError (a one-off command fails fast)
        "allow_reconnect": reconnect, "max_reconnect_attempts": -1 if reconnect else 1,
        "reconnect_time_wait": options.reconnect_wait,
        "disconnected_cb": disconnected, "reconnected_cb": reconnected, "error_cb": error,
        "user": options.user, "password": options.password, "user_credentials": options.creds,
        "tls": options.tls_context(), **options.extra}
    return await nats.connect(**{k: v for k, v in kwargs.items() if v is not None})


async def ensure_stream(js, options: NatsOptions, *, patience: float = 30.0) -> None:
    """Create the collective's stream, or leave the one that is there. A cluster that has
    just started answers only once it elected its JetStream leader: wait for it, a while."""
    import nats.errors
    from nats.js.api import StorageType, StreamConfig
    from nats.js.errors import NotFoundError, ServiceUnavailableError

    config = StreamConfig(name=options.stream, subjects=[options.subjects], storage=StorageType.FILE,
                          max_age=options.max_age_days * 86400, max_msgs=options.max_msgs,
                          num_replicas=options.replicas, duplicate_window=options.duplicate_window_s)
    waits = Backoff(cap=1.0)
    deadline = asyncio.get_running_loop().time() + patience
    while True:
        try:
            try:
                await js.stream_info(options.stream)
            except NotFoundError:
                await js.add_stream(config)
            return
        except (nats.errors.TimeoutError, ServiceUnavailableError, nats.errors.NoRespondersError):
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(waits.next_wait())


async def durable_subscription(js, options: NatsOptions, agent: str):
    """The agent's durable pull consumer on the stream (created on first use)."""
    from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

    config = ConsumerConfig(durable_name=options.durable(agent), ack_policy=AckPolicy.EXPLICIT,
                            deliver_policy=DeliverPolicy.ALL, ack_wait=30, max_ack_pending=10_000)
    return await js.pull_subscribe(options.subjects, durable=options.durable(agent), stream=options.stream,
                                   config=config)
