"""The commons an agent exchanges through: its remotes, by name."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import BadInput, NotFound
from ..model import validate_text

if TYPE_CHECKING:
    from ..store.port import Repository

REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class Remotes:
    def __init__(self, repo: Repository, *, default: str | None = None):
        self.repo = repo
        self.default = default  # CMEM_REMOTE or cmem.toml's `remote`

    def add(self, name: str, url: str) -> dict:
        if not isinstance(name, str) or not REMOTE_NAME.fullmatch(name):
            raise BadInput("name", f"{name!r} is not a valid remote name")
        url = self.repo.validate_remote_url(validate_text(url, "url"))
        if name in self.repo.remotes():
            raise BadInput("name", f"remote {name!r} exists already")
        self.repo.add_remote(name, url)
        return {"name": name, "url": url}

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
