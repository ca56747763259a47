"""Which files doltlite's server may open in the folder it serves: a guard on SQLite's VFS.

For every request, doltlite's server opens `<folder>/<name>` (and its lock file
`.<name>-lock`) through the process's default SQLite VFS, and a write creates the file,
whatever the name; its options have no switch against that. So while a folder is
served, the default VFS is a copy of the one it replaces whose xOpen first asks
`admits`: in a guarded folder only NAME.db and its side files open at all, and a
missing NAME.db is created only where the folder is served with creation allowed.
The engine then answers the request with an error and writes nothing. Opens
anywhere else go straight to the original xOpen.
"""

from __future__ import annotations

import ctypes
import os
import re
import threading
from collections import Counter

DATABASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,200}\.db")
# The engine's lock file beside a database, and SQLite's journals should one be made.
SIDE_FILE = re.compile(r"\.(?P<locked>.+)-lock|(?P<journaled>.+)-(?:journal|wal|shm)")
SQLITE_OPEN_CREATE = 0x4
SQLITE_CANTOPEN = 14
_METHODS_AFTER_OPEN = {1: 11, 2: 12, 3: 15}  # sqlite3_vfs's methods after xOpen, by its iVersion


class _Vfs(ctypes.Structure):
    """sqlite3_vfs: the fields this guard reads or replaces, then the other methods as they are."""
    _fields_ = [
        ("iVersion", ctypes.c_int),
        ("szOsFile", ctypes.c_int),
        ("mxPathname", ctypes.c_int),
        ("pNext", ctypes.c_void_p),
        ("zName", ctypes.c_char_p),
        ("pAppData", ctypes.c_void_p),
        ("xOpen", ctypes.c_void_p),
        ("methods", ctypes.c_void_p * 15),
    ]


# The file name stays a pointer: SQLite keeps URI parameters after its NUL, so a copy would lose them.
_OPEN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                         ctypes.c_void_p)


def database_of(name: str) -> tuple[str, bool]:
    """The database a file in a served folder belongs to, and whether the file is a side file."""
    side = SIDE_FILE.fullmatch(name)
    return ((side.group("locked") or side.group("journaled")), True) if side else (name, False)


def admits(name: str, *, exists: bool, creating: bool, allow_create: bool, database_exists: bool) -> bool:
    """May a file called `name` in a served folder be opened? `exists`: the file is there;
    `creating`: the open would create it; `database_exists`: its database is there."""
    database, side = database_of(name)
    if not DATABASE.fullmatch(database):
        return False
    if exists or not creating:
        return True
    return allow_create or (side and database_exists)


class _Guard:
    """The process's one guard: folders served (path -> how many servers allow creating, and
    how many do not), installed as the default VFS while any is."""

    def __init__(self):
        self._lock = threading.Lock()
        self._folders: dict[str, Counter] = {}
        self._lib: ctypes.CDLL | None = None
        self._vfs: _Vfs | None = None  # kept for the process's life: files opened through it point at it
        self._original_open = None
        self._callback = _OPEN(self._open)

    def add(self, lib: ctypes.CDLL, folder: str, allow_create: bool) -> None:
        with self._lock:
            if not self._folders:
                self._install(lib)
            self._folders.setdefault(folder, Counter())[allow_create] += 1

    def remove(self, folder: str, allow_create: bool) -> None:
        with self._lock:
            counts = self._folders[folder]
            counts[allow_create] -= 1
            if not any(counts.values()):
                del self._folders[folder]
            if not self._folders:
                self._lib.sqlite3_vfs_unregister(ctypes.byref(self._vfs))

    def _install(self, lib: ctypes.CDLL) -> None:
        if self._vfs is None:
            lib.sqlite3_vfs_find.argtypes = [ctypes.c_char_p]
            lib.sqlite3_vfs_find.restype = ctypes.c_void_p
            lib.sqlite3_vfs_register.argtypes = [ctypes.c_void_p, ctypes.c_int]
            lib.sqlite3_vfs_unregister.argtypes = [ctypes.c_void_p]
            original = lib.sqlite3_vfs_find(None)
            version = min(_Vfs.from_address(original).iVersion, 3)  # the copy has no later methods
            vfs = _Vfs()
            size = _Vfs.methods.offset + _METHODS_AFTER_OPEN[version] * ctypes.sizeof(ctypes.c_void_p)
            ctypes.memmove(ctypes.byref(vfs), original, size)
            vfs.iVersion = version
            self._original_open = _OPEN(vfs.xOpen)
            vfs.pNext, vfs.zName = None, b"cmem-served-folder"
            vfs.xOpen = ctypes.cast(self._callback, ctypes.c_void_p).value
            self._lib, self._vfs = lib, vfs
        self._lib.sqlite3_vfs_register(ctypes.byref(self._vfs), 1)

    def _open(self, vfs, name, file, flags, out_flags) -> int:
        try:
            if name and not self._allowed(os.fsdecode(ctypes.string_at(name)), flags):
                return SQLITE_CANTOPEN
        except Exception:  # never let an error here open a file it should not: refuse
            return SQLITE_CANTOPEN
        return self._original_open(vfs, name, file, flags, out_flags)

    def _allowed(self, path: str, flags: int) -> bool:
        folder, name = os.path.split(path)
        counts = self._folders.get(folder)
        if counts is None:
            return True
        database = os.path.join(folder, database_of(name)[0])
        return admits(name, exists=os.path.exists(path), creating=bool(flags & SQLITE_OPEN_CREATE),
                      allow_create=counts[False] == 0, database_exists=os.path.exists(database))


_GUARD = _Guard()


def guard(lib: ctypes.CDLL, folder: str, *, allow_create: bool) -> None:
    """From now on doltlite opens, in `folder`, only NAME.db files (and their side files),
    and creates one only if `allow_create` (and every other server of the folder allows it)."""
    _GUARD.add(lib, folder, allow_create)


def unguard(folder: str, *, allow_create: bool) -> None:
    """One `guard(folder, allow_create=...)` is over; the last one restores the original VFS."""
    _GUARD.remove(folder, allow_create)
