"""The relay: copies branches between two sites' commons over a Link, on a Clock.

Each direction (a leg) keeps a mirror database (`to-<site>.db` in the relay's folder,
with the two commons as remotes `src` and `dst`) and a journal (`to-<site>.json`,
replaced whole). A copy departs inside a window: the mirror fetches the source, pins the
branch's head on a local branch and the journal records it in flight; one link delay
later it lands: the head is pushed to the destination as a compare-and-swap.

- Agent and dream branches have one writer, on one site: landing fast-forwards the
  other site's copy. A destination head that is not an ancestor (someone wrote there)
  is refused, never forced.
- `collective/quarantine` is written on both sites: it is rebuilt on the destination's
  head as the join of both sides' cases and promotion rows (the same joins agents use),
  with the disputed pairs, the proposed memories and their keys, and pushed; a lost race
  fetches and rebuilds again. `main` does not cross: each site's agents land the
  promotions that became due on their own site's main.
- A head that arrived from the other side is not sent back.

Killed at any point, the relay resumes: a copy pinned but not journalled departs again;
one pushed but not journalled finds its head already there (or, for the cases, nothing
left to join) and is only journalled. Nothing is lost or applied twice.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from collective.errors import CollectiveError, NoCommonsYet, NonFastForward, NotFound, StorageError
from collective.model import Endorsement, Promotion, iso
from collective.model.refs import QUARANTINE_BRANCH, agent_of_working, tracking
from collective.promotion import rules as promotion_rules
from collective.quarantine.cases import changed_cases, joined
from collective.runtime.retry import retrying
from collective.store import open_repository
from collective.store.governance_tables import EndorsementTable, PromotionTable
from collective.store.tables import AgentTable, CaseTable, MemoryTable

from .clock import Clock
from .link import CASES, FLAGGED, RANKS, WORKING, Link, Site, rank

log = logging.getLogger("cmem.relay")

PINNED_CASES = "relay/in-flight/quarantine"  # the source's cases, pinned while in flight
RELAY = "relay"
LAND_ATTEMPTS = 4

Report = Callable[[dict], None]


class Leg:
    """One direction of the link: src -> dst."""

    def __init__(self, folder: Path, src: Site, dst: Site, *, report: Report):
        self.src, self.dst, self.report = src, dst, report
        self.journal_path = folder / f"to-{dst.name}.json"
        self.repo = open_repository(folder / f"to-{dst.name}.db", create=True)
        known = self.repo.remotes()
        for name, url in (("src", src.commons), ("dst", dst.commons)):
            if name not in known:
                self.repo.add_remote(name, url)
        self.journal = self._load()

    def _load(self) -> dict:
        journal = json.loads(self.journal_path.read_text(encoding="utf-8")) if self.journal_path.exists() else {}
        # sent_heads: the source head each branch last carried; landed: the head it made on the
        # destination (the same, but for the cases, which are joined there)
        return {"in_flight": {}, "sent_heads": {}, "landed": {}, "window": None, "sent": 0, **journal}

    def save(self) -> None:
        staging = self.journal_path.with_name(self.journal_path.name + ".tmp")
        staging.write_text(json.dumps(self.journal, sort_keys=True, indent=1), encoding="utf-8")
        os.replace(staging, self.journal_path)

    def close(self) -> None:
        self.repo.close()

    # --- departing ------------------------------------------------------------------
    def depart(self, now: datetime, window_start: str, *, capacity: int, floor: float,
               arrived: dict[str, str]) -> int:
        """Pin what moved on the source and record it in flight; `arrived`: heads the other
        leg brought here (not sent back). How many departed."""
        if self.journal["window"] != window_start:
            self.journal.update(window=window_start, sent=0)
        room = capacity - self.journal["sent"] if capacity else None
        if room is not None and room <= 0:
            return 0
        try:
            heads = self.repo.fetch("src")
        except NoCommonsYet:
            return 0
        moving = []
        for branch, head in heads.items():
            kind = rank(branch)
            if kind is None or branch in self.journal["in_flight"] or head in (
                    self.journal["sent_heads"].get(branch), arrived.get(branch)):
                continue
            if kind == WORKING and self._flagged(branch, floor):
                kind = FLAGGED
            moving.append((kind, branch, head))
        moving.sort()
        for kind, branch, head in moving[:room]:
            self.repo.create_branch_at(PINNED_CASES if kind == CASES else branch, tracking("src", branch))
            self.journal["in_flight"][branch] = {"head": head, "departed_at": iso(now), "rank": kind}
            self.journal["sent"] += 1
            self.save()
            self.report({"event": "departed", "from": self.src.name, "to": self.dst.name, "branch": branch,
                         "head": head, "priority": RANKS[kind], "at": iso(now)})
        return len(moving[:room])

    def _flagged(self, branch: str, floor: float) -> bool:
        """Whether the branch carries a memory of its own agent above `floor` that the
        destination lacks (copies of other agents' memories travel on their own branches)."""
        ref, before = tracking("src", branch), self.journal["sent_heads"].get(branch)
        if before is not None:
            rows = [c.new for c in self.repo.diff(before, ref, "memories") if c.new is not None]
        else:
            rows = self.repo.select("memories", columns=("amplitude", "retracted", "origin_agent"), as_of=ref)
        owner = agent_of_working(branch)
        return any(float(r["amplitude"]) > floor and not r["retracted"] and r["origin_agent"] == owner for r in rows)

    # --- landing --------------------------------------------------------------------
    def land(self, now: datetime, delay: float) -> int:
        """Push every copy whose delay has passed, highest priority first. How many landed."""
        due = sorted((flight["departed_at"], flight["rank"], branch)
                     for branch, flight in self.journal["in_flight"].items()
                     if _parse(flight["departed_at"]) + timedelta(seconds=delay) <= now)
        for _, kind, branch in due:
            flight = self.journal["in_flight"][branch]
            try:
                landed = self._land_cases() if kind == CASES else self._land_branch(branch, flight["head"])
            except NonFastForward as refused:
                landed = None
                self.report({"event": "refused", "from": self.src.name, "to": self.dst.name, "branch": branch,
                             "reason": str(refused).splitlines()[0], "at": iso(now)})
            del self.journal["in_flight"][branch]
            if landed is not None:
                self.journal["sent_heads"][branch], self.journal["landed"][branch] = flight["head"], landed
            self.save()  # then say so: a line printed is a copy journalled
            if landed is not None:
                self.report({"event": "landed", "from": self.src.name, "to": self.dst.name, "branch": branch,
                             "head": landed, "priority": RANKS[kind], "at": iso(now)})
        return len(due)

    def _dst_head(self, branch: str) -> str:
        try:
            return self.repo.fetch("dst", branch).get(branch, "")
        except (NotFound, NoCommonsYet):
            return ""

    def _land_branch(self, branch: str, head: str) -> str:
        theirs = self._dst_head(branch)
        if theirs != head:  # already there: pushed before a crash
            self.repo.push("dst", branch, expect=theirs)
        return head

    def _land_cases(self) -> str:
        """The pinned cases onto the destination; a lost race reads its head again and rejoins."""
        return retrying(self._land_cases_once, retry_on=NonFastForward, attempts=LAND_ATTEMPTS)

    def _land_cases_once(self) -> str:
        theirs = self._dst_head(QUARANTINE_BRANCH)
        if not theirs:
            self.repo.create_branch_at(QUARANTINE_BRANCH, PINNED_CASES)
            self.repo.push("dst", QUARANTINE_BRANCH, expect="")
            return self.repo.head(QUARANTINE_BRANCH)
        return self._join_cases(theirs)

    def _join_cases(self, theirs: str) -> str:
        """Rebuild the destination's cases branch as the join of both sides and push it:
        the cases, and the promotion rows (proposals, decisions, endorsements) beside them,
        so each site's agents land the same promotions on their own site's main."""
        repo = self.repo
        repo.create_branch_at(QUARANTINE_BRANCH, tracking("dst", QUARANTINE_BRANCH))
        cases = CaseTable(repo)
        held = cases.by_id(as_of=QUARANTINE_BRANCH)
        changed = changed_cases(joined(list(held.values()), cases.all(as_of=PINNED_CASES)), held)
        proposals, endorsements = self._promotion_rows()
        if not (changed or proposals or endorsements):
            return theirs
        memories, agents = MemoryTable(repo), AgentTable(repo)
        ids = sorted({m for c in changed for m in c.pair}
                     | {p.memory_id for p in proposals})
        there = set(memories.by_id(ids, as_of=QUARANTINE_BRANCH))
        rows = [r for r in memories.rows_by_id(ids, as_of=PINNED_CASES) if r["id"] not in there]
        known = {r["agent_id"] for r in repo.select(AgentTable.name, columns=("agent_id",), as_of=QUARANTINE_BRANCH)}
        keys = [r for r in repo.select(AgentTable.name, as_of=PINNED_CASES) if r["agent_id"] not in known]
        with repo.on_branch(QUARANTINE_BRANCH), repo.transaction():
            cases.write(changed)
            PromotionTable(repo).write(proposals)
            EndorsementTable(repo).write(endorsements)
            memories.write_rows(rows)
            for row in keys:
                agents.write(row)
            repo.commit(f"relay: {len(changed)} case(s), {len(proposals) + len(endorsements)} promotion row(s) "
                        f"from {self.src.name}", author=RELAY)
        repo.push("dst", QUARANTINE_BRANCH, expect=theirs)
        return repo.head(QUARANTINE_BRANCH)

    def _promotion_rows(self) -> tuple[list[Promotion], list[Endorsement]]:
        """The source's proposals and endorsements the destination lacks (the same join the
        agents use; each agent checks the signatures when it takes them)."""
        promotions, endorsements = PromotionTable(self.repo), EndorsementTable(self.repo)
        try:
            held = promotions.by_id(as_of=QUARANTINE_BRANCH)
            held_endorsements = {e.key for e in endorsements.all(as_of=QUARANTINE_BRANCH)}
            theirs = list(promotions.by_id(as_of=PINNED_CASES).values())
            their_endorsements = endorsements.all(as_of=PINNED_CASES)
        except StorageError:  # one side's branch predates promotions: nothing to carry
            return [], []
        return (promotion_rules.join(held, theirs),
                [e for e in their_endorsements if e.key not in held_endorsements])

    def next_landing(self, delay: float) -> datetime | None:
        times = [_parse(f["departed_at"]) + timedelta(seconds=delay) for f in self.journal["in_flight"].values()]
        return min(times) if times else None


class Relay:
    """Both legs of a link, stepped on a clock; `report` gets one dict per departure,
    landing or refusal (the timeline)."""

    def __init__(self, link: Link, folder: str | os.PathLike, clock: Clock, *, report: Report | None = None):
        self.link, self.clock = link, clock
        self.folder = Path(folder)
        self.report = report or (lambda event: None)
        fresh = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        legs: list[Leg] = []
        try:
            for src, dst in ((link.a, link.b), (link.b, link.a)):
                legs.append(Leg(self.folder, src, dst, report=self.report))
        except CollectiveError:  # a commons this engine cannot use: leave nothing behind
            for leg in legs:
                leg.close()
            if fresh:
                shutil.rmtree(self.folder)
            raise
        self.legs = tuple(legs)

    def close(self) -> None:
        for leg in self.legs:
            leg.close()

    def __enter__(self) -> "Relay":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def step(self) -> dict:
        """Land what is due, then, inside a window, send what moved. Counts."""
        now = self.clock.now()
        landed = sum(leg.land(now, self.link.delay) for leg in self.legs)
        window = self.link.schedule.window_at(now)
        departed = 0
        if window is not None:
            start = iso(window[0])  # always open: every step is a window of its own
            for leg, other in (self.legs, self.legs[::-1]):
                departed += leg.depart(now, start, capacity=self.link.capacity,
                                       floor=self.link.priority_amplitude, arrived=other.journal["landed"])
        return {"landed": landed, "departed": departed, "open": window is not None,
                "in_flight": sum(len(leg.journal["in_flight"]) for leg in self.legs)}

    def due_in(self, poll: float) -> float:
        """Seconds until something may happen: a landing, a window opening, or a poll."""
        now = self.clock.now()
        moments = [t for t in (leg.next_landing(self.link.delay) for leg in self.legs) if t is not None]
        window = self.link.schedule.next_window(now)
        if window is not None and window[0] > now:
            moments.append(window[0])
        waits = [(t - now).total_seconds() for t in moments]
        return max(0.0, min([poll] + waits))

    def run(self, should_stop: Callable[[], bool], *, poll: float = 5.0, until_idle: bool = False) -> None:
        """Step until `should_stop()` (or, with `until_idle`, until nothing is in flight and
        nothing departed). A failing commons is logged and tried again."""
        while not should_stop():
            try:
                counts = self.step()
            except CollectiveError as e:
                log.warning("relay step failed: %s", str(e).splitlines()[0])
                counts = None
            if until_idle and counts and not counts["in_flight"] and not counts["departed"]:
                return
            if should_stop():
                return
            self.clock.sleep(max(self.due_in(poll), 0.01))


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
