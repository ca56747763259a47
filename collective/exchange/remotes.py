"""The commons an agent exchanges through: its remotes, by name."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import BadInput, NotFound
from ..model import validate_text

if TYPE_CHECKING:
    from ..store.port import Repository

# Dolt refuses a '.' anywhere in a remote name (the engine's "remote name invalid").
REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class Remotes:
    def __init__(self, repo: Repository, *, default: str | None = None):
        self.repo = repo
        self.default = default  # CMEM_REMOTE or cmem.toml's `remote`

    def add(self, name: str, url: str) -> dict:
        """{"name", "url", "commons"}: the URL as kept (a file URL's path decoded), and whether
        a commons is there already (None: a server, checked at the first fetch)."""
        if not isinstance(name, str) or not REMOTE_NAME.fullmatch(name):
            raise BadInput("name", f"{name!r} is not a valid remote name (expected [A-Za-z0-9][A-Za-z0-9_-]{{0,63}})")
        url = self.repo.validate_remote_url(validate_text(url, "url"))
        if name in self.repo.remotes():
            raise BadInput("name", f"remote {name!r} exists already")
        self.repo.add_remote(name, url)
        return {"name": name, "url": self.repo.remotes()[name], "commons": self.repo.commons_exists(url)}

    def remove(self, name: str) -> dict:
        """Forget a remote; what was taken through it stays (peers' watermarks, cases)."""
        url = self._url(name)
        self.repo.remove_remote(name)
        return {"name": name, "url": url, "removed": True}

    def set_url(self, name: str, url: str) -> dict:
        """{"name", "url", "previous", "commons"}: a remote pointed at another commons (the
        new URL checked first; the old one kept when it does not pass)."""
        previous = self._url(name)
        url = self.repo.validate_remote_url(validate_text(url, "url"))
        self.repo.remove_remote(name)
        try:
            self.repo.add_remote(name, url)
        except BaseException:
            self.repo.add_remote(name, previous, kept=True)
            raise
        return {"name": name, "url": self.repo.remotes()[name], "previous": previous,
                "commons": self.repo.commons_exists(url)}

    def _url(self, name: str) -> str:
        url = self.repo.remotes().get(validate_text(name, "name"))
        if url is None:
            raise NotFound("remote", f"no remote named {name!r}")
        return url

    def all(self) -> dict[str, str]:
        return self.repo.remotes()

    def choose(self, name: str | None) -> str:
        """The remote a command acts on: the one named, the default, or the only one."""
        remotes = self.repo.remotes()
        chosen = (validate_text(name, "remote") if name is not None else None) or self.default
        if not chosen:
            if len(remotes) == 1:
                return next(iter(remotes))
            if not remotes:
                raise BadInput("remote", "no remote configured; run `cmem remote add NAME URL`")
            raise BadInput("remote", f"several remotes ({', '.join(sorted(remotes))}); name one")
        if chosen not in remotes:
            raise NotFound("remote", f"no remote named {chosen!r}")
        return chosen
