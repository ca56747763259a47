"""What a remote's URL means, before any engine sees it.

A file URL is read as RFC 8089 says and `Path.as_uri()` writes it: its path is
percent-decoded (`dir%20x` is the folder `dir x`), and a `?` or `#` would start a query or
fragment, which a file remote has not. The engines keep a file remote as `file://` and the
decoded path (Dolt's own `remote add` decodes; doltlite's takes the text as it is), so a URL
read back from `remotes()` is "kept": its path is literal. A server URL is
http(s)://[USER@]host[:port]/PATH, checked here so a typo is refused when the remote is
added rather than found "unreachable" at the first push.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from urllib.parse import SplitResult, unquote, urlsplit

from ..errors import BadInput

FILE_PREFIX = "file://"
# A host name: dot-separated labels of letters, digits, '-' and '_' (container and compose names use '_').
_HOST_NAME = re.compile(r"(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
                        r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?")
# host, then an optional port, after the user part: the port's digits are checked here because
# urlsplit takes "-1" or "+1" as a number
_HOST_PORT = re.compile(r"(?P<host>\[[^\]]*\]|[^:\[\]]*)(?::(?P<port>[^:]*))?")


def split(url: str) -> SplitResult:
    """urlsplit, whose ValueError (a bracketed host that is no IPv6 address) is bad input."""
    try:
        return urlsplit(url)
    except ValueError as e:
        raise BadInput("url", f"{e} in {url!r}") from None


def scheme(url: str) -> str:
    return split(url).scheme


def file_path(url: str) -> Path:
    """The path a file URL names, percent-decoded; BadInput (field 'url') when it names none."""
    parts = split(url)
    if parts.netloc or not parts.path.startswith("/"):
        raise BadInput("url", f"file remotes need an absolute path: file:///abs/path/commons.db, got {url!r}")
    if "?" in url or "#" in url:
        raise BadInput("url", f"a file URL has no query or fragment (write ? as %3F and # as %23), got {url!r}")
    try:
        path = unquote(parts.path, errors="strict")
    except UnicodeDecodeError:
        raise BadInput("url", f"its percent-escapes are not UTF-8: {url!r}") from None
    if "\x00" in path:
        raise BadInput("url", f"its path holds a NUL character: {url!r}")
    return Path(path)


def kept_path(url: str) -> Path:
    """The path of a file remote as an engine keeps it (literal: decoded when it was added)."""
    return Path(url[len(FILE_PREFIX):])


def is_file_url(url: str) -> bool:
    return url.startswith(FILE_PREFIX)


def check_server_url(url: str, path: re.Pattern, expected: str) -> str:
    """`url` when it is http(s)://[USER@]host[:port]/PATH with `path` matching PATH;
    BadInput (field 'url') naming what is wrong, saying `expected`, otherwise."""
    parts = split(url)
    problem = None
    if "?" in url or "#" in url:
        problem = "a commons URL has no query or fragment"
    else:
        problem = _address_problem(parts.netloc.rpartition("@")[2]) or (
            None if path.fullmatch(parts.path) else f"bad path {parts.path!r}")
    if problem:
        raise BadInput("url", f"{problem} in {url!r} (expected {expected})")
    return url


def _address_problem(address: str) -> str | None:
    """What is wrong with the host[:port] of a server URL, or None."""
    match = _HOST_PORT.fullmatch(address)
    if match is None:
        return f"bad host {address!r}"
    host, port = match.group("host"), match.group("port")
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"bad host {host!r}"
    elif not _HOST_NAME.fullmatch(host):
        return f"bad host {host!r}" if host else "no host"
    if port is not None and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        return f"the port must be a number from 1 to 65535, got {port!r}"
    return None
