"""Serve every commons database in a folder over HTTP(S), through doltlite's own server.

libdoltlite exports doltliteServeAsyncOpts / doltliteServerPort /
doltliteServerStop; clients then use http(s)://host:port/<name>.db exactly like
a file:// remote.

Authentication is the engine's: with a TLS certificate and key the server speaks
https; with an auth-keys folder (public JWKs, `cmem credential --export`) and an
audience it refuses every request, read or write, that lacks a token signed by one
of those keys for that audience. Clients send tokens over https only, so the keys
need TLS. What it cannot do: tell one authorised key from another, so any
authorised agent may write any branch of any database in the folder.

Two rules are this module's: a bind beyond loopback needs the auth-keys folder (an
open server there would take any push from anyone who reaches it), and the engine
opens only NAME.db files in the folder, creating a new one only when the server is
started with `allow_create` (served_folder guards the engine's file opens).
"""

from __future__ import annotations

import ctypes
import ipaddress
from pathlib import Path

from ..errors import BadInput, StorageError
from .doltlite import library_path
from .served_folder import guard, unguard


class _ServeOptions(ctypes.Structure):
    _fields_ = [
        ("zDir", ctypes.c_char_p),
        ("port", ctypes.c_int),
        ("zBindAddr", ctypes.c_char_p),
        ("certFile", ctypes.c_char_p),
        ("keyFile", ctypes.c_char_p),
        ("authKeysDir", ctypes.c_char_p),
        ("audience", ctypes.c_char_p),
        ("timeoutMs", ctypes.c_int),
    ]


def _library() -> ctypes.CDLL:
    lib = ctypes.CDLL(library_path())
    lib.doltliteServeAsyncOpts.argtypes = [ctypes.POINTER(_ServeOptions)]
    lib.doltliteServeAsyncOpts.restype = ctypes.c_void_p
    lib.doltliteServerPort.argtypes = [ctypes.c_void_p]
    lib.doltliteServerPort.restype = ctypes.c_int
    lib.doltliteServerStop.argtypes = [ctypes.c_void_p]
    lib.doltliteServerStop.restype = None
    return lib


def _checked_bind(bind: str, auth_keys) -> str:
    """An IPv4 address (the engine listens on IPv4 only); beyond loopback, only with auth keys."""
    try:
        address = ipaddress.IPv4Address(bind)
    except ValueError:
        raise BadInput("bind", f"{bind!r} is not an IPv4 address") from None
    if not address.is_loopback and auth_keys is None:
        raise BadInput("auth-keys", f"serving on {bind} (not loopback) needs --auth-keys (with --cert, --key "
                                    "and --audience): anyone who reaches it could read and push")
    return str(address)


def _existing(path: str | Path | None, field: str, kind: str) -> Path | None:
    if path is None:
        return None
    path = Path(path).resolve()
    if not (path.is_dir() if kind == "folder" else path.is_file()):
        raise BadInput(field, f"{path} is not a {kind}")
    return path


class CommonsServer:
    """`with CommonsServer(folder) as server: server.url_for('commons.db')`.

    It serves the NAME.db files in `folder`; a push to one that is not there makes it only
    with `allow_create`, and any other name is refused."""

    def __init__(self, folder: str | Path, *, bind: str = "127.0.0.1", port: int = 0, timeout_ms: int = 30000,
                 cert: str | Path | None = None, key: str | Path | None = None,
                 auth_keys: str | Path | None = None, audience: str | None = None, allow_create: bool = False):
        self.folder = _existing(folder, "dir", "folder")
        if not (0 <= port <= 65535):
            raise BadInput("port", f"must be 0..65535, got {port}")
        if (cert is None) != (key is None):
            raise BadInput("cert", "a TLS certificate and its key go together (--cert and --key)")
        if (auth_keys is None) != (not audience):
            raise BadInput("audience", "--auth-keys and --audience go together (the audience is the "
                                       "host name clients reach the commons by)")
        if auth_keys is not None and cert is None:
            raise BadInput("auth-keys", "credentials travel over https only: give --cert and --key too")
        self.bind = _checked_bind(bind, auth_keys)  # before anything listens
        self.cert, self.key = _existing(cert, "cert", "file"), _existing(key, "key", "file")
        self.auth_keys, self.audience = _existing(auth_keys, "auth-keys", "folder"), audience
        self.allow_create = allow_create
        self._requested_port = port
        self._timeout_ms = timeout_ms
        self._handle = None
        self._lib = _library()
        self._options = None  # kept alive while the server runs: it holds C strings

    def start(self) -> "CommonsServer":
        def c(value) -> bytes | None:
            return None if value is None else str(value).encode()
        self._options = _ServeOptions(c(self.folder), self._requested_port, c(self.bind), c(self.cert),
                                      c(self.key), c(self.auth_keys), c(self.audience), self._timeout_ms)
        guard(self._lib, str(self.folder), allow_create=self.allow_create)
        handle = self._lib.doltliteServeAsyncOpts(ctypes.byref(self._options))
        if not handle:
            unguard(str(self.folder), allow_create=self.allow_create)
            raise StorageError(f"could not serve {self.folder} on {self.bind}:{self._requested_port}"
                               + (" (is the certificate and key a valid PEM pair?)" if self.cert else ""))
        self._handle = handle
        return self

    @property
    def port(self) -> int:
        if self._handle is None:
            raise StorageError("server not running")
        return int(self._lib.doltliteServerPort(self._handle))

    @property
    def authenticated(self) -> bool:
        return self.auth_keys is not None

    @property
    def url(self) -> str:
        return f"{'https' if self.cert else 'http'}://{self.bind}:{self.port}"

    def url_for(self, name: str) -> str:
        return f"{self.url}/{name}"

    def stop(self) -> None:
        if self._handle is not None:
            self._lib.doltliteServerStop(self._handle)
            self._handle = None
            unguard(str(self.folder), allow_create=self.allow_create)

    def __enter__(self) -> "CommonsServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
