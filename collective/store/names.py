"""SQL identifiers and commit authors, spelled the same way by every backend."""

from __future__ import annotations

import re

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def ident(name: str) -> str:
    """Table and column names come from code, never from users; check anyway."""
    if not _IDENT.fullmatch(name):
        raise ValueError(f"not an SQL identifier: {name!r}")
    return name


def quote(name: str) -> str:
    """A checked identifier in backticks, which SQLite and MySQL both accept
    (Dolt reserves words such as `vector`)."""
    return f"`{ident(name)}`"


def author_arg(agent_id: str) -> str:
    """Commits are authored by the agent: `--author "id <id@cmem.local>"`."""
    return f"{agent_id} <{agent_id}@cmem.local>"
