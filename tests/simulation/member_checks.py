"""What a member writing the commons (rogue.py) must never achieve, as plain checks of the
honest agents' state against what the member forged (each returns a list of Violations).

- verified_joins: state changes only through rows that verified against the roster: no
  verdict by a key it names as no reviewer, no forged memory on main, no row the member
  forged on an agent's own branch, and nothing of an agent it squatted (its rows held or
  its key trusted);
- own_branch: where another hand wrote an agent's branch on the commons (a commit appended,
  a branch made under its name with another key), the agent's next push puts its own head
  back there (refusing the other as branch_tampered);
- verdict_reach: a verdict resolves only the cases it names: one naming another case's
  dispute is on a case of the same two claims, never one a member's link joined to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from collective.model.enums import CaseStatus

from .invariants import VERIFIED_JOINS, Violation

OWN_BRANCH, VERDICT_REACH = "own_branch", "verdict_reach"


@dataclass
class Forged:
    """What the member forged, so far."""

    main: set[str] = field(default_factory=set)                    # memory ids it put on the commons' main
    rows: set[tuple[str, str | None]] = field(default_factory=set)  # (memory id, forged text, None: any text)
    keys: dict[str, str] = field(default_factory=dict)             # agent name -> a key it made under that name

    def count(self) -> int:
        return len(self.main) + len(self.rows)


def verified_joins(agents: Mapping, forged: Forged) -> list[Violation]:
    """On every agent that follows a roster, each case's verdict (or reopening) is by a
    roster reviewer: one a member outside the reviewers signed closed nothing there; no
    main holds a memory a member forged onto the commons' main. On every agent: no row a
    member forged (on another agent's branch, or in a name it squatted) is held, and no key
    it made under another agent's name is trusted."""
    from collective.quarantine.signing import verdict_key
    from collective.roster import service as roster

    found = _forged_rows(agents, forged)
    for name, agent in agents.items():
        following = roster.held(agent.tables)
        if following is None:
            continue
        reviewers = following.reviewer_keys()
        for case in agent.tables.cases.all():
            if case.resolution and verdict_key(case) not in reviewers:
                found.append(Violation(VERIFIED_JOINS, f"{name}: case {case.id} decided by a key the roster of "
                                                       f"{following.collective} names as no reviewer",
                                       f"{VERIFIED_JOINS}:unauthorised verdict"))
        taken = sorted(forged.main & {r["id"] for r in agent.tables.memories.rows(as_of="main", columns=("id",))})
        if taken:
            found.append(Violation(VERIFIED_JOINS, f"{name}: main holds forged memories {taken}",
                                   f"{VERIFIED_JOINS}:forged main"))
    return found


def _forged_rows(agents: Mapping, forged: Forged) -> list[Violation]:
    found = []
    ids = sorted({memory_id for memory_id, _ in forged.rows})
    for name, agent in agents.items():
        held = {r["id"]: r["content"] for r in agent.tables.memories.rows_by_id(ids, columns=("id", "content"))} \
            if ids else {}
        for memory_id, text in sorted(forged.rows, key=str):
            if memory_id in held and text in (None, held[memory_id]):
                found.append(Violation(VERIFIED_JOINS, f"{name} holds a row a member forged: {memory_id} "
                                                       f"({held[memory_id]!r})", f"{VERIFIED_JOINS}:forged row held"))
        for squatted, key in forged.keys.items():
            row = agent.tables.agents.get(squatted)
            if squatted != name and row is not None and row["public_key"] == key:
                found.append(Violation(VERIFIED_JOINS, f"{name} holds a member's key for {squatted}, one the roster "
                                                       "never named for it", f"{VERIFIED_JOINS}:squatter trusted"))
    return found


def own_branch(name: str, agent, forged_head: str, commons_head: str | None, *, pushed: bool = True) -> list[Violation]:
    """After another hand wrote `name`'s branch on the commons (`forged_head`: a commit
    appended, or a branch another key made under its name), the agent's push (`pushed`:
    it went) put its own history back there: the commons holds its head or an ancestor."""
    if not pushed:
        return [Violation(OWN_BRANCH, f"{name}: its push failed where the commons held {forged_head} on its "
                                      "branch", f"{OWN_BRANCH}:push failed")]
    head = agent.repo.head(agent.branch)
    if commons_head is None or not agent.repo.is_ancestor(commons_head, head):
        return [Violation(OWN_BRANCH, f"{name}: the commons holds {commons_head} on its branch after its push, "
                                      f"not its head {head} or an ancestor (another hand wrote {forged_head} there)",
                                      f"{OWN_BRANCH}:not put back")]
    return []


def verdict_reach(agents: Mapping, claims_of: Callable[[str], object | None]) -> list[Violation]:
    """On every agent, each resolved case whose verdict names the dispute of another case held
    there disputes the same two claims as that case (`claims_of`: a memory id's claim, None
    where the simulator did not write it: then nothing is said)."""
    found = []
    for name, agent in agents.items():
        cases = agent.tables.cases.by_id()
        for case in cases.values():
            named = (case.decision() or {}).get("dispute") if case.status == CaseStatus.RESOLVED else None
            if not named or named == case.id or named not in cases:
                continue
            mine, theirs = (_sides(c, claims_of) for c in (case, cases[named]))
            if mine is not None and theirs is not None and mine != theirs:
                found.append(Violation(VERDICT_REACH, f"{name}: case {case.id} resolved by a verdict on dispute "
                                                      f"{named}, whose case disputes other claims",
                                       f"{VERDICT_REACH}:other claims"))
    return found


def _sides(case, claims_of: Callable[[str], object | None]) -> frozenset | None:
    claims = [claims_of(memory_id) for memory_id in case.pair]
    return None if None in claims else frozenset(claims)
