"""A memory's row history from Dolt: each commit that changed it, and its state after.

What a reviewer reads beside a dispute: when the memory arrived, when its amplitude
fell or its flag was set, who refuted it, and by which commit.
"""

from __future__ import annotations

from .model import shown_amplitude, validate_count
from .store.port import Repository
from .store.tables import MemoryTable

STATE = ("amplitude", "disputed", "refuted_by", "valid_until", "retracted", "absorbed_into")
MAX_HISTORY = 1000


def memory_history(repo: Repository, memory_id: str, *, branch: str, limit: int = 20) -> list[dict]:
    """Newest first: {"commit", "committer", "email", "date", "message", "kind" (added, modified,
    removed), and the row's state after that commit: amplitude, disputed, refuted_by,
    valid_until, retracted, absorbed_into} (a column the schema lacks reads None)."""
    limit = validate_count(limit, "limit", maximum=MAX_HISTORY)
    if repo.active_branch() == branch:
        changes = repo.row_history(MemoryTable.name, "id", memory_id, limit=limit)
    else:
        with repo.on_branch(branch):
            changes = repo.row_history(MemoryTable.name, "id", memory_id, limit=limit)
    return [{**{k: v for k, v in change.items() if k != "row"}, **_state(change["row"])} for change in changes]


def _state(row: dict) -> dict:
    state = {name: row.get(name) for name in STATE}
    for flag in ("disputed", "retracted"):
        if state[flag] is not None:
            state[flag] = bool(state[flag])
    if state["amplitude"] is not None:
        state["amplitude"] = shown_amplitude(state["amplitude"])
    return state
