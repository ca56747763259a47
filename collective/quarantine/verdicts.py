"""What a person's verdict does on one holder, to its own copies (DESIGN.md, Verdicts).

keep a / keep b: the winner's flag is cleared and the penalty its dispute took
here is given back (capped); the losing memory is refuted (`refuted_by` = the
dispute, `valid_until` = the verdict's time), with every memory that says the same
thing (refutation.py). both: flags cleared, penalties given back, a
partial_agreement link. merged: both sides refuted by the corrected memory.
Nothing is deleted. The caller holds the transaction, applies each case once
(applied_verdicts) and settles the refutations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model.case import Case
from ..model.enums import LinkType
from .cases import effects, refuter

if TYPE_CHECKING:
    from ..peers import Peers
    from ..store.tables import Tables

MAX_COPIES = 256  # a side is a handful of rows; stop a runaway walk over a dense consensus web
# From this many memories, the walk reads the whole graph once (a scan of the memories and one of
# the links) rather than a few queries a step: absorbed_into is not indexed, so each chunk of a
# query scans the table. Measured at 100k memories: 2.35 s for the 19k memories of a pull's
# open cases, a step at a time.
WHOLE_GRAPH_FROM = 2000


def copies(tables: Tables, memory_id: str, *, holder: str) -> set[str]:
    """The memory and the rows held here that stand on its side (see copies_of)."""
    return copies_of(tables, [memory_id], holder=holder)[memory_id]


def copies_of(tables: Tables, memory_ids: Iterable[str], *, holder: str) -> dict[str, set[str]]:
    """For each memory, itself and the rows held here that stand on its side: absorbed into
    it (or it into them) and consensus-linked by the holder's own merge, followed
    transitively. A consensus link another agent made (a peer's dream brings its links) is
    its word alone, and a verdict reaches no further for it. Standing on a side is
    symmetric, so a side is a connected part of that graph; it is walked a step at a time for
    all the memories at once (a few queries a step), and a part stops growing at MAX_COPIES."""
    parent: dict[str, str] = {}
    size: dict[str, int] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        size.setdefault(x, 1)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(x: str, y: str) -> None:
        rx, ry = root(x), root(y)
        if rx != ry:
            rx, ry = (rx, ry) if size[rx] >= size[ry] else (ry, rx)
            parent[ry] = rx
            size[rx] += size[ry]

    wanted = list(dict.fromkeys(memory_ids))
    graph = _Graph(tables, holder) if len(wanted) >= WHOLE_GRAPH_FROM else None
    walked: set[str] = set()
    step = set(wanted)
    while step:
        for x, y in graph.pairs(step) if graph else _neighbour_pairs(tables, sorted(step), holder):
            join(x, y)
        walked |= step
        step = {x for x in parent if x not in walked and size[root(x)] < MAX_COPIES}
    sides: dict[str, set[str]] = {}
    for x in list(parent):
        sides.setdefault(root(x), set()).add(x)
    return {m: set(sides.get(root(m), {m})) for m in wanted}


def _neighbour_pairs(tables: Tables, ids: list[str], holder: str) -> list[tuple[str, str]]:
    """(memory, neighbour) for each of `ids`: the copies absorbed into it, what it was
    absorbed into, and the consensus links the holder made."""
    pairs = [(r["absorbed_into"], r["id"]) for r in tables.memories.absorbed_into_any(ids)]
    pairs += [(r["id"], r["absorbed_into"]) for r in tables.memories.rows_by_id(ids, columns=("id", "absorbed_into"))
              if r["absorbed_into"]]
    pairs += [(link["source_id"], link["target_id"]) for link in tables.links.touching_any(ids)
              if link["link_type"] == LinkType.CONSENSUS and link["created_by"] == holder]
    return pairs


class _Graph:
    """The edges _neighbour_pairs finds, read all at once."""

    def __init__(self, tables: Tables, holder: str):
        self.edges: dict[str, list[tuple[str, str]]] = {}
        for absorber, absorbed in tables.memories.absorptions():
            self._add(absorber, absorbed)
        for link in tables.links.of_type(LinkType.CONSENSUS.value, created_by=holder):
            self._add(link["source_id"], link["target_id"])

    def _add(self, x: str, y: str) -> None:
        self.edges.setdefault(x, []).append((x, y))
        self.edges.setdefault(y, []).append((x, y))

    def pairs(self, ids) -> list[tuple[str, str]]:
        return [pair for memory_id in ids for pair in self.edges.get(memory_id, ())]


def apply(tables: Tables, peers: Peers, case: Case, *, agent_id: str, amplitude_cap: float,
          penalty: float, now: str) -> None:
    """Flags, penalties, links and trust after one case's verdict. What it refutes is the
    caller's to settle, by the rule every holder evaluates alike (refutation.py)."""
    effect = effects(case)
    for winner in effect.winners:
        _give_back(tables, winner, case, amplitude_cap=amplitude_cap, penalty=penalty, now=now)
        for memory_id in copies(tables, winner, holder=agent_id) - {winner}:
            tables.memories.set(memory_id, disputed=0, updated_at=now)
    if effect.partial:
        tables.links.write([{"source_id": case.memory_id_a, "target_id": case.memory_id_b,
                             "link_type": LinkType.PARTIAL_AGREEMENT, "weight": 0.5,
                             "created_by": agent_id, "created_at": now}])
    _move_trust(tables, peers, case, effect.verdicts, now=now)


def _move_trust(tables: Tables, peers: Peers, case: Case, verdicts: Iterable[tuple[str, str]], *, now: str) -> None:
    """The trust moves a case's verdict makes, once per dispute (an agent not met yet is
    skipped: `owed_to` makes its moves when it is met)."""
    decision = case.decision()
    dispute = decision.get("dispute") or case.id
    moves = [(who, reason) for who, reason in verdicts if not _moved_for(tables, who, reason, dispute)]
    peers.move(moves, verifier=decision.get("by", "reviewer"), at=now,
               evidence={"case_id": case.id, "dispute": dispute, "memory_ids": list(case.pair)})


def owed_to(tables: Tables, peers: Peers, newcomer: str, *, now: str) -> None:
    """The trust moves the verdicts applied here made for every agent but `newcomer`, not
    met then, made for it now that it is: its trust then rests on the evidence, not on
    whether the verdict or the agent arrived first. Once each, as ever (the ledger says)."""
    for case_id in sorted(tables.applied_verdicts.case_ids()):
        case = tables.cases.get(case_id)
        if case is None or not case.decision():
            continue
        _move_trust(tables, peers, case, [(who, why) for who, why in effects(case).verdicts if who == newcomer],
                    now=now)


def withdraw(tables: Tables, applied: Case, *, now: str) -> list[str]:
    """Undo what `applied` (a case as its verdict was applied here) did to this holder's
    rows, before the verdict that stands on the case is applied: its refutations (the rows
    it refuted, on arrival too, carry its refuter and time) are lifted, its winners are
    disputed again and a partial link it made is removed. Trust it moved stays moved: the
    ledger is append-only, and a verdict moves trust once per dispute. Returns the ids of
    the rows lifted (another verdict may refute them still: the caller settles them)."""
    effect = effects(applied)
    decision = applied.decision()
    refuted = {"refuted_by": refuter(decision, applied), "valid_until": decision.get("at") or ""}
    lifted = [row["id"] for row in tables.memories.rows_where(refuted, columns=("id",))]
    for memory_id in lifted:
        tables.memories.set(memory_id, refuted_by=None, valid_until=None, updated_at=now)
    for winner in effect.winners:
        if tables.memories.get(winner) is not None:
            tables.memories.set(winner, disputed=1, updated_at=now)
    if effect.partial:
        tables.links.remove(applied.memory_id_a, applied.memory_id_b, LinkType.PARTIAL_AGREEMENT)
    return lifted


def _give_back(tables: Tables, memory_id: str, case: Case, *, amplitude_cap: float, penalty: float,
               now: str) -> None:
    """Clear the flag; undo the dispute penalty when this holder took it (it linked the pair)."""
    row = tables.memories.get(memory_id)
    if row is None:
        return
    other = case.memory_id_b if memory_id == case.memory_id_a else case.memory_id_a
    links = [link for link in tables.links.touching(memory_id)
             if link["link_type"] == LinkType.DISPUTES and other in (link["source_id"], link["target_id"])]
    amplitude = row.amplitude
    if links:
        factor = max(1e-6, 1.0 - penalty * float(links[0]["weight"]))
        amplitude = min(amplitude / factor, max(amplitude_cap, row.amplitude))
    tables.memories.set(memory_id, disputed=0, amplitude=amplitude, updated_at=now)


def _moved_for(tables: Tables, agent_id: str, reason: str, dispute: str) -> bool:
    """Whether this dispute's verdict moved the agent's trust already (one move per dispute,
    however many of its cases arrive)."""
    return any(e.reason == reason and e.facts().get("dispute") == dispute for e in tables.ledger.of(agent_id))
