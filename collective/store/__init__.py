"""Storage: the repository port (port.py) and the engines behind it.

`open_repository(url)` picks the engine by the URL's scheme:

- `doltlite:///abs/path/memory.db`, or a bare path: embedded doltlite (the default);
- `mysql://user:pass@host:port/db`, or `dolt://...`: a database on a Dolt sql-server.

`Location` says where an agent's database lives and opens it through here.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

from ..errors import BadInput
from .location import BACKEND_FILE, DB_FILE, ENGINES, Location, doltlite_url
from .port import Commit, Conflict, Repository, RowChange

__all__ = ["BACKEND_FILE", "DB_FILE", "ENGINES", "Commit", "Conflict", "Location", "Repository", "RowChange",
           "doltlite_url", "open_repository"]

URL_HELP = "use doltlite:///abs/path/memory.db or mysql://user:pass@host:port/db"


def open_repository(url: str | os.PathLike, *, create: bool = False) -> Repository:
    """Open the database at `url`; with `create`, make it first when it does not exist.

    An unknown scheme, or a doltlite URL without an absolute path, raises BadInput
    (field 'url'); a missing database NotFound; an unreachable server ServerUnreachable.
    """
    text = os.fspath(url)
    if "://" not in text:
        from .doltlite import DoltliteRepository
        return DoltliteRepository(text, create=create)
    parsed = urlparse(text)
    if parsed.scheme == "doltlite":
        if parsed.netloc or not parsed.path.startswith("/"):
            raise BadInput("url", f"doltlite URLs need an absolute path: doltlite:///abs/path/memory.db, got {text!r}")
        from .doltlite import DoltliteRepository
        return DoltliteRepository(unquote(parsed.path), create=create)
    if parsed.scheme in ("mysql", "dolt"):
        from .doltserver import DoltServerRepository, ServerAddress, create_database
        address = ServerAddress.parse(text, field="url")
        if create:
            create_database(address)
        return DoltServerRepository(address)
    raise BadInput("url", f"unsupported database {text!r} ({URL_HELP})")
