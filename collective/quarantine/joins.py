"""Which links between cases count here: how far one verdict reaches. Pure: the caller
reads the rows and says which memories make the same claim.

A case row may name another case of the same dispute (`dispute`, signed by the agent
that linked it), and one verdict then decides every case of the group. Any roster agent
may sign a link, so a link is its maker's word: one joining the pump case to the oxygen
dispute would let the oxygen verdict refute the pump claims. A link counts here only

- where its two cases are about the same two claims, decided as a merge decides that two
  memories say the same thing, on what every holder holds alike (refutation.SameClaim:
  the signed texts and stances), so every holder counts the same links; or
- where a reviewer this agent honours signed a verdict on the case naming the dispute.

A link that does not count stays in its row (rows travel and join as they are): it
groups nothing here.
"""

from __future__ import annotations

from typing import Callable, Collection, Sequence

from ..model.case import Case

Same = Callable[[str, str], bool]  # whether two memories held here make the same claim


def counted(cases: Sequence[Case], same: Same, reviewer_keys: Collection[str],
            verdict_key: Callable[[Case], str | None]) -> list[Case]:
    """The cases, each with the link that counts here (or none) in `dispute`."""
    by_id = {c.id: c for c in cases}
    out = []
    for case in cases:
        link = _reviewed(case, reviewer_keys, verdict_key)
        if link is None and case.dispute in by_id and same_sides(case, by_id[case.dispute], same):
            link = case.dispute
        out.append(case if link == case.dispute else case.replace(dispute=link))
    return out


def same_sides(x: Case, y: Case, same: Same) -> bool:
    """Whether two cases dispute the same two claims, either way round."""
    a, b = x.pair
    c, d = y.pair
    return (same(a, c) and same(b, d)) or (same(a, d) and same(b, c))


def _reviewed(case: Case, reviewer_keys: Collection[str], verdict_key: Callable[[Case], str | None]) -> str | None:
    """The dispute an honoured reviewer's verdict on the case names, when another case's."""
    if not case.resolution or verdict_key(case) not in reviewer_keys:
        return None
    named = case.decision().get("dispute")
    return named if isinstance(named, str) and named != case.id else None
