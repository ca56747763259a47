"""Remotes over SQL: the commons a repository fetches from and pushes to.

A mixin of `SqlRepository` (store/sql.py), which gives it `_vc`, `query`,
`resolve` and `remote_branches`. The URL and path checks are here (what a URL
means: remote_urls); what a commons looks like (`_file_commons`, `SERVER_PATH`),
how the engine keeps a file remote (`_engine_file_url`) and what an engine's
refusal means (`_translate_error`) are the backends'.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import BadInput, NoCommonsYet, NonFastForward, NotFound, RemoteUnreachable, StorageError
from .remote_urls import check_server_url, file_path, is_file_url, kept_path, scheme


class DoltRemotes:
    # --- engine hooks --------------------------------------------------
    SERVER_PATH: re.Pattern = re.compile(r"/.+")  # the path of a server URL: the commons it names
    SERVER_FORM = "http(s)://host:port/name"

    def _file_commons(self, remote: str, path: Path) -> bool:
        """Whether a commons of this engine is at `path`; NotACommons when something
        else is (the other engine's commons, an agent's own database, or no commons at all)."""
        raise NotImplementedError

    def _make_file_commons(self, path: Path) -> None:
        """Prepare `path` for the push that makes a file commons there."""

    def _engine_file_url(self, path: Path) -> str:
        """What this engine's `remote add` takes to keep a file remote at `path`."""
        raise NotImplementedError

    def _check_file_path(self, path: Path) -> None:
        """BadInput (field 'url') when this engine cannot keep a file remote at `path`."""

    def _remote_vc(self, name: str, remote: str, *args: str, branch: str | None = None) -> list[tuple]:
        """A remote procedure (fetch, push), made with this repository's credential."""
        return self._vc(name, remote, *args, remote=remote, branch=branch)

    # --- remotes -------------------------------------------------------
    def remotes(self) -> dict[str, str]:
        return {r["name"]: r["url"] for r in self.query("SELECT name, url FROM dolt_remotes")}

    def validate_remote_url(self, url: str) -> str:
        kind = scheme(url)
        if kind == "file":
            path = file_path(url)
            self._check_file_path(path)
            if not path.parent.is_dir():
                raise BadInput("url", f"folder {path.parent} does not exist")
            self._file_commons(str(path), path)
            return url
        if kind in ("http", "https"):
            return check_server_url(url, self.SERVER_PATH, self.SERVER_FORM)
        raise BadInput("url", f"unsupported remote {url!r} (use file:///abs/path/commons.db or {self.SERVER_FORM})")

    def commons_exists(self, url: str, *, remote: str | None = None) -> bool | None:
        """Whether a commons is at a file remote's path (False: not yet, the first push makes
        it); None for a server, which only a fetch can tell. NotACommons (naming `remote`, else
        the URL) when something else is."""
        if scheme(url) != "file":
            return None
        return self._file_commons(remote or url, file_path(url))

    def add_remote(self, name: str, url: str, *, kept: bool = False) -> None:
        """`url` as a person writes it (checked first), or, `kept`, as `remotes()` gave it
        (a remote restored as it was)."""
        if not kept:
            url = self.validate_remote_url(url)
            path = file_path(url) if scheme(url) == "file" else None
        else:
            path = kept_path(url) if is_file_url(url) else None
        self._vc("remote", "add", name, url if path is None else self._engine_file_url(path))

    def remove_remote(self, name: str) -> None:
        self._remote_url(name)  # NotFound first
        self._vc("remote", "remove", name)

    def _remote_url(self, remote: str) -> str:
        url = self.remotes().get(remote)
        if url is None:
            raise NotFound("remote", f"no remote named {remote!r}")
        return url

    def _commons_at(self, remote: str, url: str) -> Path | None:
        """The path of a file remote (`url` as kept) that holds no commons yet (None when it
        does, or the remote is no file); NotACommons when it holds something else."""
        if not is_file_url(url):
            return None
        path = kept_path(url)
        return None if self._file_commons(remote, path) else path

    def fetch(self, remote: str, branch: str | None = None) -> dict[str, str]:
        missing = self._commons_at(remote, self._remote_url(remote))
        if missing is not None:
            raise NoCommonsYet(remote, str(missing))
        try:
            self._remote_vc("fetch", remote, *([branch] if branch else []))
        except NotFound as e:
            if branch is None:
                raise
            raise NotFound("ref", f"no branch {branch!r} on remote {remote!r}") from e
        prefix = remote + "/"
        return {k[len(prefix):]: v for k, v in self.remote_branches().items() if k.startswith(prefix)}

    def push(self, remote: str, branch: str, *, expect: str | None = None, force: bool = False) -> None:
        missing = self._commons_at(remote, self._remote_url(remote))
        ours = self.resolve(branch)
        if expect is not None:
            theirs = "" if missing is not None else self.remote_head(remote, branch)
            if theirs != expect:
                raise NonFastForward(branch, ours, theirs)
        if missing is not None:  # this push makes the commons
            self._make_file_commons(missing)
        try:
            self._remote_vc("push", remote, branch, *(["--force"] if force else []), branch=branch)
        except NonFastForward as refused:
            try:
                theirs = self.remote_head(remote, branch)
            except (StorageError, RemoteUnreachable):  # the refusal matters more than its details
                theirs = None
            raise NonFastForward(branch, ours, theirs, detail=refused.detail) from refused

    def remote_head(self, remote: str, branch: str) -> str:
        """The remote's head of `branch`, fetched now; "" when the branch is not there."""
        try:
            return self.fetch(remote, branch).get(branch, "")
        except (NotFound, NoCommonsYet):
            return ""
