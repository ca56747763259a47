"""Every environment variable collective reads, with what it sets: the one table, and the
one reader of os.environ (tests/unit/test_settings.py holds the code to it).

An environment variable overrides cmem.toml and is overridden by a command-line option.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Variable:
    name: str
    sets: str                # one line: what it sets
    key: str | None = None   # the top-level cmem.toml key it overrides, if any


VARIABLES: dict[str, Variable] = {v.name: v for v in (
    Variable("CMEM_HOME", "the home folder holding cmem.toml and the agents (default ~/.cmem); --home overrides it"),
    Variable("CMEM_AGENT", "the agent a command acts as; --agent overrides it", key="agent"),
    Variable("CMEM_REMOTE", "the remote push and pull use when none is named", key="remote"),
    Variable("CMEM_COLLECTIVE", "the collective whose events an agent sends and hears; --collective overrides it",
             key="collective"),
    Variable("CMEM_NATS_URL", "NATS servers, comma-separated (over [nats] servers); --nats overrides it",
             key="nats_url"),
    Variable("CMEM_BACKEND", "the engine of new agents, doltlite or dolt; --backend overrides it"),
    Variable("CMEM_DOLT_SERVER", "a Dolt sql-server new Dolt agents share (mysql://user:pass@host:port)"),
    Variable("CMEM_DOLT", "the dolt binary to run instead of the one scripts/install-dolt.sh installs"),
    Variable("CMEM_TOKENIZER", "another tokenizer.json for the default embedder"),
    Variable("CMEM_REVIEW_TOKEN", "the access token of cmem review; --token overrides it"),
    Variable("USER", "the reviewer whose key signs a decision when --by names none", key="reviewer"),
    Variable("CMEM_ROSTER", "the fingerprint of the roster's first version agents follow (a roster that starts "
                            "elsewhere is refused)", key="roster"),
)}

OVERRIDING: dict[str, str] = {v.key: v.name for v in VARIABLES.values() if v.key}  # cmem.toml key -> variable


def read(name: str) -> str | None:
    """The variable's value; None when unset or empty. Only variables in the table."""
    return os.environ.get(VARIABLES[name].name) or None
