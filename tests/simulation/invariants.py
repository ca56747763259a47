"""The invariants of the collective (docs/concepts/invariants.md), as plain checks.

Each check takes open agents (name -> Agent) and what the simulator knows, and returns a
list of Violations, each naming the invariant and its evidence; an empty list means it
holds. The cheap ones (no crash, bounds, monotonic history, no distinct fact hidden) run
after every step; the others after a full sync round (see machine.py). What a member's
forgeries must never achieve (verified joins, an agent's own branch, a verdict's reach) is
checked in member_checks.py.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

import numpy as np

from collective.core import scoring, trust
from collective.errors import CollectiveError

NO_CRASH, BOUNDS, MONOTONIC = "no_crash", "bounds", "monotonic_history"
NOTHING_LOST, NO_DISTINCT_HIDDEN = "nothing_lost", "no_distinct_fact_hidden"
CONVERGENCE, QUIESCENCE, IDEMPOTENCE = "convergence", "quiescence", "idempotence"
ORDER_INDEPENDENCE, VERDICTS_TRAVEL, ATOMICITY = "order_independence", "verdicts_travel", "atomicity"
VERIFIED_JOINS, REFUTATIONS_SETTLED = "verified_joins", "refutations_settled"
HONEST_TRUST, FINDABLE = "honest_trust", "findable_by_own_words"
# what a round compares between agents, and between two pulls of the same heads
SHARED_TABLES = ("memories", "skip_links", "quarantine", "promotions", "endorsements")
RECALL_K = 10
FINDABLE_K = 3  # a pulled memory comes back this high by its own words


@dataclass
class Violation:
    invariant: str
    evidence: str
    signature: str = ""  # what identifies the fault across runs: invariant and error, no ids
    details: dict = field(default_factory=dict)

    def __post_init__(self):
        self.signature = self.signature or self.invariant

    def to_dict(self) -> dict:
        return {"invariant": self.invariant, "signature": self.signature, "evidence": self.evidence}


def crash(command: str, error: BaseException) -> list[Violation]:
    """No crash: a CollectiveError with a one-line message is an answer; anything else is not."""
    if isinstance(error, CollectiveError):
        text = str(error)
        if text and "\n" not in text and "Traceback" not in text:
            return []
        return [Violation(NO_CRASH, f"{command}: {type(error).__name__} message is not one line: {text[:200]!r}",
                          f"{NO_CRASH}:{command}:{type(error).__name__}:multi-line")]
    where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    at = f" at {where.filename.rsplit('/', 2)[-2:]}:{where.lineno}" if where else ""
    first = str(error).splitlines()[0][:160] if str(error) else ""
    return [Violation(NO_CRASH, f"{command}: {type(error).__name__}: {first}{at}",
                      f"{NO_CRASH}:{command}:{type(error).__name__}: {_stable(first)}")]


def _stable(text: str) -> str:
    """A message without ids and numbers, so one fault has one signature."""
    out = []
    for word in text.split():
        out.append("#" if any(ch.isdigit() for ch in word) and len(word) > 6 else word)
    return " ".join(out)[:120]


def bounds(agents: Mapping, *, amplitude_cap: float) -> list[Violation]:
    """Amplitudes within (0, cap], trust within [floor, ceiling], and each trust score what its
    ledger adds up to from the start."""
    found = []
    for name, agent in agents.items():
        for row in agent.tables.memories.rows(columns=("id", "amplitude", "phase")):
            a, phi = float(row["amplitude"]), float(row["phase"])
            if not (0.0 < a <= amplitude_cap + 1e-9) or not math.isfinite(phi):
                found.append(Violation(BOUNDS, f"{name}: memory {row['id']} amplitude {a} phase {phi}",
                                       f"{BOUNDS}:amplitude"))
        for peer, score in agent.trust_scores().items():
            if peer == name:
                continue
            if not trust.FLOOR - 1e-9 <= score <= trust.CEILING + 1e-9:
                found.append(Violation(BOUNDS, f"{name}: trust in {peer} is {score}", f"{BOUNDS}:trust"))
            ledger = agent.trust_ledger(peer)["events"]
            total = trust.START + sum(float(e["delta"]) for e in ledger)
            if abs(total - score) > 1e-6:
                found.append(Violation(BOUNDS, f"{name}: trust in {peer} is {score}, its ledger of "
                                               f"{len(ledger)} rows adds up to {total}", f"{BOUNDS}:ledger"))
    return found


def honest_trust(agents: Mapping, honest: Iterable[str]) -> list[Violation]:
    """No honest peer's trust at the floor without a verdict against it: quarantine moves
    trust by a bounded amount a pull (open disputes are questions), so only a person's
    verdict (the ledger's verdict_against rows) takes a peer that far."""
    found = []
    honest = set(honest)
    for name, agent in agents.items():
        for peer, score in agent.trust_scores().items():
            if peer == name or peer not in honest or score > trust.FLOOR + 1e-9:
                continue
            ledger = agent.trust_ledger(peer)["events"]
            if not any(e["reason"] == "verdict_against" for e in ledger):
                reasons = sorted({e["reason"] for e in ledger})
                found.append(Violation(HONEST_TRUST, f"{name}: trust in {peer} is at the floor ({score}) after "
                                                     f"{len(ledger)} ledger rows ({', '.join(reasons)}), none a "
                                                     "verdict against it", f"{HONEST_TRUST}:floor without verdict"))
    return found


def monotonic(agents: Mapping, seen: dict[tuple[str, str], int]) -> list[Violation]:
    """No memory's sync_version goes back on any agent; `seen` keeps the highest seen so far."""
    found = []
    for name, agent in agents.items():
        for row in agent.tables.memories.rows(columns=("id", "sync_version", "retracted")):
            key, version = (name, row["id"]), int(row["sync_version"])
            if version < seen.get(key, version):
                found.append(Violation(MONOTONIC, f"{name}: memory {row['id']} sync_version {seen[key]} -> {version} "
                                                  f"(retracted now: {bool(row['retracted'])})", MONOTONIC))
            seen[key] = max(version, seen.get(key, version))
    return found


def no_distinct_hidden(agents: Mapping, claim_of: Callable[[str], object], *, threshold: float,
                       embed: Callable[[list[str]], np.ndarray]) -> list[Violation]:
    """A memory is absorbed only into one that makes the same claim, and only when the two
    texts are at least `threshold` similar."""
    found = []
    for name, agent in agents.items():
        rows = agent.tables.memories.rows(columns=("id", "content", "absorbed_into"))
        content = {r["id"]: r["content"] for r in rows}
        for row in rows:
            into = row["absorbed_into"]
            if into is None or into not in content:
                continue
            mine, theirs = claim_of(row["content"]), claim_of(content[into])
            if mine is None or theirs is None:
                continue  # a text the simulator did not write (a reviewer's merged statement)
            vectors = embed([row["content"], content[into]])
            cosine = float(np.dot(vectors[0], vectors[1]))
            if mine != theirs or cosine < threshold - 1e-6:
                why = "other claim" if mine != theirs else "below threshold"
                found.append(Violation(NO_DISTINCT_HIDDEN, f"{name}: {row['content']!r} absorbed into "
                                                           f"{content[into]!r} (cosine {cosine:.2f})",
                                       f"{NO_DISTINCT_HIDDEN}:{why}"))
    return found


def _chain(memory_id: str, absorbed: Mapping[str, str | None]) -> list[str]:
    out = [memory_id]
    while absorbed.get(out[-1]) and absorbed[out[-1]] not in out:
        out.append(absorbed[out[-1]])
    return out


def nothing_lost(agents: Mapping, expected: Mapping[str, str], claim_of: Callable[[str], object]) -> list[Violation]:
    """Every pushed, unretracted memory (id -> its text) is held by every agent and recalled by
    its own text there, as itself or through what absorbed it (then that memory, which makes
    the same claim, is recalled by its own text), unless a verdict refuted it. An absorption
    into another claim is no_distinct_hidden's to report, not this one's."""
    found = []
    for name, agent in agents.items():
        rows = {r["id"]: r for r in agent.tables.memories.rows(
            columns=("id", "content", "absorbed_into", "retracted", "refuted_by"))}
        absorbed = {i: r["absorbed_into"] for i, r in rows.items()}
        for memory_id, text in expected.items():
            if memory_id not in rows:
                found.append(Violation(NOTHING_LOST, f"{name} does not hold {memory_id} ({text!r})",
                                       f"{NOTHING_LOST}:not held"))
                continue
            chain = [i for i in _chain(memory_id, absorbed) if i in rows]
            live = rows[chain[-1]]
            if any(rows[i]["refuted_by"] for i in chain) or claim_of(live["content"]) != claim_of(text):
                continue
            if rows[memory_id]["retracted"]:
                found.append(Violation(NOTHING_LOST, f"{name}: {memory_id} ({text!r}) retracted but its origin "
                                                     "never retracted it", f"{NOTHING_LOST}:retracted"))
                continue
            if not (_recalled(agent, text, chain, found) or _recalled(agent, live["content"], [live["id"]], found)):
                how = "absorbed into a retracted memory" if live["retracted"] else "not recalled"
                found.append(Violation(NOTHING_LOST, f"{name}: recall of {text!r} misses {memory_id} (chain {chain}, "
                                                     f"ending in {live['content']!r})", f"{NOTHING_LOST}:{how}"))
    return found


def _recalled(agent, text: str, ids: list[str], found: list[Violation]) -> bool:
    """Whether recall by `text` finds one of `ids`; a recall that fails is a crash (and then
    nothing more can be said: True)."""
    try:
        return any(h.memory.id in ids for h in agent.recall(text, k=RECALL_K, include_faded=True))
    except Exception as error:  # noqa: BLE001 (the no-crash invariant judges what escaped)
        found.extend(crash("recall", error) or [Violation(NO_CRASH, f"recall of {text!r}: {error}",
                                                          f"{NO_CRASH}:recall:{type(error).__name__}")])
        return True


def findable(agents: Mapping, now, *, fade_threshold: float, half_lives: Mapping[str, float]) -> list[Violation]:
    """A pulled memory stays findable by its own words: recall of the text of a memory of
    another origin that stands (not retracted, refuted nor absorbed) returns it in the top
    FINDABLE_K, unless age and weak amplitude faded it (core.scoring.fading). Trust in its
    origin and the penalties of its disputes rank it; they never hide it. When more live
    memories hold exactly its words than FINDABLE_K, hits holding them all do."""
    found = []
    for name, agent in agents.items():
        rows = agent.tables.memories.recallable_rows(columns=("id", "content", "content_hash", *scoring.SCORE_COLUMNS))
        pulled = [r for r in rows if r["origin_agent"] != name]
        if not pulled:
            continue
        fading = scoring.row_fading(pulled, now.timestamp(), half_lives)
        copies: dict[str, int] = {}
        for row in rows:
            copies[row["content_hash"]] = copies.get(row["content_hash"], 0) + 1
        for row, weighed in zip(pulled, fading):
            if weighed < fade_threshold:
                continue  # faded by age and weak importance, as the design has it
            try:
                hits = agent.recall(row["content"], k=FINDABLE_K, now=now)
            except Exception as error:  # noqa: BLE001 (the no-crash invariant judges what escaped)
                found.extend(crash("recall", error))
                break
            if row["id"] in {h.memory.id for h in hits}:
                continue
            if copies[row["content_hash"]] > FINDABLE_K and len(hits) == FINDABLE_K and all(
                    h.memory.content_hash == row["content_hash"] for h in hits):
                continue
            shown = ", ".join(f"{h.memory.origin_agent}:{h.memory.content[:40]!r}" for h in hits)
            found.append(Violation(FINDABLE, f"{name}: recall of {row['content']!r} ({row['origin_agent']}, "
                                             f"disputed {bool(row['disputed'])}, amplitude {row['amplitude']:.3f}, "
                                             f"trust {agent.trust_scores().get(row['origin_agent'])}) misses it; "
                                             f"hits: {shown}", f"{FINDABLE}:not in the top {FINDABLE_K}"))
    return found


def retractions_travel(agents: Mapping, retracted: Iterable[str]) -> list[Violation]:
    """A retraction that was pushed holds on every agent that holds the memory."""
    found = []
    for name, agent in agents.items():
        for row in agent.tables.memories.rows_by_id(sorted(retracted), columns=("id", "retracted")):
            if not row["retracted"]:
                found.append(Violation(NOTHING_LOST, f"{name}: {row['id']} is live, its origin retracted it",
                                       f"{NOTHING_LOST}:un-retracted"))
    return found


def view(agent) -> dict:
    """What a round must make equal on every agent: the ids held (not retracted, not refuted),
    the disputes with their statuses, and the consensus main."""
    rows = agent.tables.memories.rows(columns=("id", "retracted", "refuted_by"))
    return {"ids": sorted(r["id"] for r in rows if not r["retracted"] and not r["refuted_by"]),
            "disputes": sorted((d["dispute"], d["status"]) for d in agent.disputes()),
            "main": sorted(r["id"] for r in agent.tables.memories.rows(as_of="main", columns=("id",)))}


def convergence(agents: Mapping) -> list[Violation]:
    views = {name: view(agent) for name, agent in agents.items()}
    first_name, first = next(iter(views.items()))
    found = []
    for name, seen in views.items():
        for part in ("ids", "disputes", "main"):
            if seen[part] != first[part]:
                a, b = set(map(str, first[part])), set(map(str, seen[part]))
                example = sorted(a ^ b)[0]
                states = ", ".join(f"{n}: {_state(agents[n], example)}" for n in (first_name, name)) \
                    if part == "ids" else ""
                found.append(Violation(CONVERGENCE, f"{part} differ after a full round: {first_name} has "
                                                    f"{sorted(a - b)[:3]} that {name} lacks, {name} has "
                                                    f"{sorted(b - a)[:3]}; {example} on {states}",
                                       f"{CONVERGENCE}:{part}"))
    return found


def refutations_settled(agents: Mapping) -> list[Violation]:
    """After a round, every row's refutation is what the agent's own rule gives it now
    (quarantine.refutation): a verdict taken or withdrawn in any order leaves the same
    answer a holder would reach by evaluating the rule afresh."""
    found = []
    for name, agent in agents.items():
        rule = agent.quarantine.refutations.rule()
        held = agent.tables.memories.by_id([r["id"] for r in agent.tables.memories.rows(columns=("id",))])
        for memory in held.values():
            want = rule.change(memory)
            if want is not None:
                found.append(Violation(REFUTATIONS_SETTLED, f"{name}: {memory.id} refuted_by {memory.refuted_by} "
                                                            f"where the rule gives {want[0]}; {memory.content[:60]!r}",
                                       f"{REFUTATIONS_SETTLED}:{'refuted' if want[0] else 'standing'}"))
                break
    return found


def _state(agent, memory_id: str) -> str:
    row = agent.tables.memories.get(memory_id)
    if row is None:
        return "not held"
    return (f"origin {row.origin_agent}, retracted {row.retracted}, refuted_by {row.refuted_by}, "
            f"absorbed_into {row.absorbed_into}, {row.content[:60]!r}")


def heads(agents: Mapping) -> dict[str, str]:
    """Each agent's head, with the message of its last commit (the evidence when it moves)."""
    return {name: f"{agent.repo.head(agent.branch)[:12]} {agent.log(1)[0].message[:100]!r}"
            for name, agent in agents.items()}


def table_hashes(agent) -> dict[str, str]:
    """doltlite's history-independent hash of each shared table at the agent's head."""
    return {t: str(agent.repo.scalar(f"SELECT dolt_hashof_table({agent.repo.param})", (t,))) for t in SHARED_TABLES}


def unchanged(invariant: str, before: Mapping, after: Mapping, what: str) -> list[Violation]:
    """Each agent's `what` as it was; the signature names the tables that moved, when tables."""
    found = []
    for name in before:
        was, now = before[name], after.get(name)
        if was == now:
            continue
        moved = sorted(t for t in was if was[t] != (now or {}).get(t)) if isinstance(was, dict) else []
        found.append(Violation(invariant, f"{name}: {what} moved: {moved or f'{was} -> {now}'}",
                               f"{invariant}:{','.join(moved)}" if moved else invariant))
    return found


def verdicts_travel(agents: Mapping, refuted: Mapping[str, str]) -> list[Violation]:
    """After a round, a memory an authorised verdict refuted (id -> its text) is refuted on every
    agent that holds it, and recall leaves it out."""
    found = []
    for name, agent in agents.items():
        rows = {r["id"]: r for r in agent.tables.memories.rows_by_id(sorted(refuted), columns=("id", "refuted_by"))}
        for memory_id, text in refuted.items():
            if memory_id not in rows:
                continue
            if not rows[memory_id]["refuted_by"] or _recalled(agent, text, [memory_id], found):
                found.append(Violation(VERDICTS_TRAVEL, f"{name}: {memory_id} ({text!r}) not refuted after a round",
                                       VERDICTS_TRAVEL))
    return found
