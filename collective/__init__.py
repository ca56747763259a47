"""Versioned collective memory for AI agents, on Dolt.

    from collective import open_agent
    with open_agent("earth-1", home="/tmp/cmem", create=True) as agent:
        agent.store("The coolant pump in module C is safe to operate")
        agent.recall("is the pump safe?")

Importing this package makes the stdlib sqlite3 speak Dolt (doltlite), in
this process and in the processes it starts.
"""

from __future__ import annotations

from .runtime import doltlite_boot as _doltlite_boot  # noqa: F401  (first: sqlite3 speaks Dolt from here on)

from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from .errors import (AgentExists, BadInput, CollectiveError, CommonsRefused, NonFastForward,  # noqa: E402
                     NotFound, RemoteUnreachable, StorageError)

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ["open_agent", "Agent", "CollectiveError", "BadInput", "NotFound", "AgentExists", "StorageError",
           "NonFastForward", "RemoteUnreachable", "CommonsRefused"]


def open_agent(agent_id: str | None = None, *, home: str | Path | None = None, create: bool = False,
               **options: Any) -> "Agent":
    """Open an agent (create it first with `create=True` when it does not exist yet).

    `home` defaults to $CMEM_HOME or ~/.cmem; `options` go to `Agent.open` (embedder,
    judge, branch) or, when creating, `Agent.init` (embedder, backend, dolt_url, ...).
    """
    from .agent import Agent
    if create:
        if not agent_id:
            raise BadInput("agent", "missing: name the agent to create")
        return Agent.init(agent_id, home=home, exist_ok=True, **options)
    return Agent.open(agent_id, home=home, **options)


def __getattr__(name: str):
    # `collective.Agent` without loading the agent's modules for `import collective` alone
    if name == "Agent":
        from .agent import Agent
        return Agent
    raise AttributeError(f"module 'collective' has no attribute {name!r}")
