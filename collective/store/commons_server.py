"""Serve every commons database in a folder over HTTP, through doltlite's own server.

libdoltlite exports doltliteServeAsyncOpts / doltliteServerPort /
doltliteServerStop; clients then use http://host:port/<name>.db exactly like
a file:// remote.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

from ..errors import BadInput, StorageError
from .doltlite import library_path


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


class CommonsServer:
    """`with CommonsServer(folder) as server: server.url_for('commons.db')`."""

    def __init__(self, folder: str | Path, *, bind: str = "127.0.0.1", port: int = 0, timeout_ms: int = 30000):
        self.folder = Path(folder).resolve()
        if not self.folder.is_dir():
            raise BadInput("dir", f"{folder} is not a folder")
        if not (0 <= port <= 65535):
            raise BadInput("port", f"must be 0..65535, got {port}")
        self.bind = bind
        self._requested_port = port
        self._timeout_ms = timeout_ms
        self._handle = None
        self._lib = _library()
        self._options = None  # kept alive while the server runs: it holds C strings

    def start(self) -> "CommonsServer":
        self._options = _ServeOptions(str(self.folder).encode(), self._requested_port, self.bind.encode(),
                                      None, None, None, None, self._timeout_ms)
        handle = self._lib.doltliteServeAsyncOpts(ctypes.byref(self._options))
        if not handle:
            raise StorageError(f"could not serve {self.folder} on {self.bind}:{self._requested_port}")
        self._handle = handle
        return self

    @property
    def port(self) -> int:
        if self._handle is None:
            raise StorageError("server not running")
        return int(self._lib.doltliteServerPort(self._handle))

    @property
    def url(self) -> str:
        return f"http://{self.bind}:{self.port}"

    def url_for(self, name: str) -> str:
        return f"{self.url}/{name}"

    def stop(self) -> None:
        if self._handle is not None:
            self._lib.doltliteServerStop(self._handle)
            self._handle = None

    def __enter__(self) -> "CommonsServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
