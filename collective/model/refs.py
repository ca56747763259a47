"""Every branch and ref name, built in one place."""

from __future__ import annotations

QUARANTINE_BRANCH = "collective/quarantine"
ROSTER_BRANCH = "collective/roster"
MAIN_BRANCH = "main"
_WORKING = "/working"


def ref_part_problem(part: str) -> str | None:
    """Why Dolt would refuse a branch with this part between slashes (git's ref-name rules
    for the characters an agent id may hold: no '..', no part ending in '.lock'), or None."""
    if ".." in part:
        return "it holds '..', which no branch name may"
    if part.endswith(".lock"):
        return "it ends in '.lock', which no branch name part may"
    return None


def working_branch(agent_id: str) -> str:
    """Where an agent writes: `<agent>/working`."""
    return f"{agent_id}{_WORKING}"


def agent_of_working(branch: str) -> str | None:
    """The agent whose working branch this is, or None for any other branch."""
    return branch[: -len(_WORKING)] if branch.endswith(_WORKING) else None


def tracking(remote: str, branch: str) -> str:
    """A remote branch as this database knows it after a fetch: `<remote>/<branch>`."""
    return f"{remote}/{branch}"


def peer_working(remote: str, peer: str) -> str:
    """A peer's working branch as fetched from `remote`."""
    return tracking(remote, working_branch(peer))


_DREAM = "/dream/"


def dream_branch(agent_id: str, stamp: str) -> str:
    """One dream cycle's branch: `<agent>/dream/<YYYYmmdd-HHMMSS>`."""
    return f"{agent_id}{_DREAM}{stamp}"


def agent_of_dream(branch: str) -> str | None:
    """The agent whose dream branch this is, or None for any other branch."""
    return branch.split(_DREAM, 1)[0] if _DREAM in branch else None
