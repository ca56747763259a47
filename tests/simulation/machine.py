"""The collective as a Hypothesis state machine: random histories of real doltlite agents
sharing one file commons, with the invariants (invariants.py) checked as they go.

Rules are what agents and people do (store, forget, push, pull, resolve, ...) and what
goes wrong (a killed command, a commons that is away). The cheap invariants run after
every step; a full sync round is itself a rule, after which the round's invariants
(nothing lost, convergence, quiescence, idempotence, verdicts travel) are checked.

A violation whose signature `is_known` accepts is recorded and the history goes on; any
other violation fails the history, which Hypothesis then shrinks to a short one.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, consumes, initialize, invariant, multiple,
                                 precondition, rule)

from collective import provision, reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.errors import CollectiveError, one_line
from collective.model import utcnow

from . import faults
from . import invariants as inv
from .rogue import REVIEWER, RogueMember
from .texts import TextGenerator

MAX_AGENTS = 20
# what a child process runs on an agent (no embedding: the children load no embedder)
CHILD_COMMANDS = (("pull",), ("push",), ("key", "rotate"), ("quarantine", "list"), ("status",))
FAULTS = ("kill_9", "two_at_once", "commons_away", "commons_restored")
ROUND_EVERY = 8
MAX_CASE_PASSES = 4  # a round's passes of pulls after the first: one more while the last changed shared cases
# a caller's mistakes, each a call on an open agent
BAD_CALLS: dict[str, Callable] = {
    "store importance 10**400": lambda a: a.store("The hatch is sealed.", importance=10**400),
    "store empty text": lambda a: a.store("   "),
    "store tags as a string": lambda a: a.store("The hatch is sealed.", tags="hatch"),
    "recall as_of a number": lambda a: a.recall("hatch", as_of=5),
    "recall k 10000": lambda a: a.recall("coolant pump", k=10000),
    "recall a lone surrogate": lambda a: a.recall("pump \ud800"),
    "forget an unknown memory": lambda a: a.forget("no-such-memory"),
    "add_remote a number": lambda a: a.add_remote(5, "file:///nowhere/commons.db"),
    "resolve an unknown dispute": lambda a: a.resolve_dispute("no-such-dispute", keep="a", note="x", by=REVIEWER),
}  # commands between full rounds, at least: a round is costly, and histories need writes


def _store_rule(kind: str, target: Bundle):
    """A rule storing one text of this kind (texts.py) on the agent drawn, after some minutes."""
    @rule(target=target, who=st.integers(0, MAX_AGENTS), minutes=st.integers(0, 30))
    def store_kind(self, who, minutes):
        return self.store(who, kind, minutes)
    store_kind.__name__ = f"store_{kind}"
    return store_kind


class Tally:
    """What a run did and found, over every history it ran."""

    def __init__(self):
        self.commands: Counter = Counter()
        self.errors: Counter = Counter()      # typed errors, by command and type: answers, not faults
        self.error_lines: dict[str, str] = {}  # each one's first message: enough to tell an answer from a fault
        self.faults: Counter = Counter()      # faults injected, by kind
        self.texts: Counter = Counter()       # texts stored (and updated to), by kind: texts.KINDS or real
        self.violations: Counter = Counter()  # by invariant
        self.signatures: dict[str, str] = {}  # signature -> first evidence
        self.steps = 0
        self.rounds = 0
        self.simulated = timedelta()

    def to_dict(self) -> dict:
        return {"steps": self.steps, "rounds": self.rounds, "commands": dict(sorted(self.commands.items())),
                "typed_errors": dict(sorted(self.errors.items())), "typed_error_lines": dict(sorted(self.error_lines.items())),
                "faults_injected": dict(sorted(self.faults.items())), "texts_stored": dict(sorted(self.texts.items())),
                "violations": dict(sorted(self.violations.items())), "signatures": self.signatures,
                "simulated_minutes": round(self.simulated.total_seconds() / 60, 1)}


class CollectiveMachine(RogueMember, RuleBasedStateMachine):
    """Subclass with `configure` to choose the number of agents, the embedder and what is known."""

    min_agents, max_agents = 3, 5
    embedder: Callable = None           # () -> the embedder every agent shares
    is_known: Callable[[str], bool] = staticmethod(lambda signature: False)
    tally: Tally = Tally()
    workdir: Path | None = None         # where each history's folder goes (a test's tmp_path)
    inject_faults = True                # kill -9, two commands at once, the commons away
    text_source = "mixed"               # texts.SOURCES: templates, real text, or both

    memories = Bundle("memories")       # (origin, memory id) of every memory stored

    def __init__(self):
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="history-", dir=self.workdir))
        self.agents: dict[str, Agent] = {}
        self.texts: dict[str, str] = {}          # memory id -> its text
        self.origin: dict[str, str] = {}         # memory id -> origin agent
        self.pushed: set[str] = set()            # ids their origin has pushed
        self.retracted: set[str] = set()         # ids their origin retracted
        self.retraction_pushed: set[str] = set()
        self.refuted: dict[str, str] = {}        # ids an authorised verdict refuted -> text
        self.upheld: set[str] = set()            # ids a verdict kept
        self.looked_again: set = set()           # claims a reviewer superseded or reopened a verdict on
        self.has_pushed: set[str] = set()
        self.seen_versions: dict = {}
        self.violations: list[inv.Violation] = []
        self.reported: set[tuple[str, str]] = set()
        self.raised = 0
        self.clock = utcnow()
        self.cosines: dict = {}
        self.round_spoilt = False
        self.last_round = self.steps = 0
        self.rostered = False

    @classmethod
    def configure(cls, *, agents: tuple[int, int], embedder: Callable, is_known=None, tally: Tally | None = None,
                  workdir: Path | None = None, inject_faults: bool = True, texts: str = "mixed"):
        return type(cls.__name__, (cls,), {"min_agents": agents[0], "max_agents": agents[1],
                                           "embedder": staticmethod(embedder), "tally": tally or Tally(),
                                           "is_known": staticmethod(is_known or (lambda s: False)),
                                           "workdir": workdir, "inject_faults": inject_faults,
                                           "text_source": texts})

    # --- setting up --------------------------------------------------------------
    @initialize(count=st.integers(0, MAX_AGENTS), seed=st.integers(0, 2**32 - 1))
    def start(self, count, seed):
        count = self.min_agents + count % (self.max_agents - self.min_agents + 1)
        self.generator = TextGenerator(random.Random(seed), self.text_source)
        home = self.home = self.root / "home"
        self.commons = faults.Commons(self.root)
        home.mkdir(parents=True)
        public = reviewer_keys.init(Home.at(home), REVIEWER)["public_key"]
        for i in range(count):
            name = f"agent-{i + 1}"
            agent = Agent.init(name, home=home, embedder=self.embedder())
            agent.add_remote("origin", self.commons.url)
            agent.add_reviewer(REVIEWER, public)
            self.agents[name] = agent
        self.names = sorted(self.agents)
        self.settings = self.agents[self.names[0]].settings
        # half the histories: a collective with a roster (ana owns it and reviews), the other
        # half agents that each authorise ana themselves
        self.rostered = seed % 2 == 0
        if self.rostered:
            owner = self.agents[self.names[0]]
            owner.init_roster("habitat", owners=[REVIEWER])
            for name in self.names:
                owner.roster_add_agent(name)
            owner.roster_add_reviewer(REVIEWER)
            self.rogue_on_roster(owner)

    def teardown(self):
        for agent in [*self.agents.values(), *self.rogue_agents()]:
            try:
                agent.close()
            except Exception:  # noqa: BLE001 (a close after a fault must not hide the fault)
                pass
        shutil.rmtree(self.root, ignore_errors=True)

    # --- doing and recording -----------------------------------------------------
    def agent(self, who: int) -> tuple[str, Agent]:
        name = self.names[who % len(self.names)]
        return name, self.agents[name]

    def do(self, command: str, call: Callable):
        """Run one command: its result, or None when it raised (a typed error is an answer; anything
        else a no-crash violation)."""
        self.tally.commands[command] += 1
        self.tally.steps += 1
        self.steps += 1
        try:
            return call()
        except Exception as error:  # noqa: BLE001 (the no-crash invariant judges what escaped)
            self.record(inv.crash(command, error))
            if isinstance(error, CollectiveError):
                self.tally.errors[f"{command}:{type(error).__name__}"] += 1
                self.tally.error_lines.setdefault(f"{command}:{type(error).__name__}", one_line(error))
            self.round_spoilt = True
            return None

    def record(self, found: list[inv.Violation]) -> None:
        """Count each violation once (a check after every step sees the same one again)."""
        for v in found:
            if (v.signature, v.evidence) in self.reported:
                continue
            self.reported.add((v.signature, v.evidence))
            self.tally.violations[v.invariant] += 1
            self.tally.signatures.setdefault(v.signature, v.evidence)
            if not self.is_known(v.signature):
                self.violations.append(v)

    def tick(self, minutes: int) -> None:
        self.clock += timedelta(minutes=minutes)
        self.tally.simulated += timedelta(minutes=minutes)

    # --- what agents do ------------------------------------------------------------
    @rule(minutes=st.integers(1, 120))
    def advance(self, minutes):
        """Time passes (first by name, so the simplest history Hypothesis tries is a cheap one)."""
        self.tick(minutes)

    # one rule per kind of text, so that stores are the commonest step (Hypothesis draws rules evenly)
    store_shared = _store_rule("shared", memories)
    store_contradiction = _store_rule("contradiction", memories)
    store_paraphrase = _store_rule("paraphrase", memories)
    store_other_object = _store_rule("other_object", memories)
    store_private = _store_rule("private", memories)

    def store(self, who: int, kind: str, minutes: int):
        self.tick(minutes)
        name, agent = self.agent(who)
        text = self.generator.draw(kind)
        self.tally.texts[text.kind] += 1
        result = self.do("store", lambda: agent.store(text.content))
        if result is None:
            return multiple()
        self.texts[result.memory.id], self.origin[result.memory.id] = text.content, name
        return (name, result.memory.id)

    @rule(who=st.integers(0, MAX_AGENTS), memory=memories, k=st.sampled_from([1, 5, 50, 1000]))
    def recall(self, who, memory, k):
        name, agent = self.agent(who)
        self.do("recall", lambda: agent.recall(self.texts[memory[1]], k=k, now=self.clock))

    @rule(memory=consumes(memories))
    def forget(self, memory):
        name, memory_id = memory
        result = self.do("forget", lambda: self.agents[name].forget(memory_id))
        if result is not None:
            self.retracted.add(memory_id)

    @rule(target=memories, memory=consumes(memories),
          kind=st.sampled_from(["shared", "contradiction", "paraphrase", "other_object", "private"]))
    def update(self, memory, kind):
        """Its origin corrects a memory: the old one retracted, the new one its child."""
        name, memory_id = memory
        text = self.generator.draw(kind)
        self.tally.texts[text.kind] += 1
        result = self.do("update", lambda: self.agents[name].update(memory_id, text.content))
        if result is None:
            return multiple()
        self.retracted.add(memory_id)
        self.texts[result["id"]], self.origin[result["id"]] = text.content, name
        return (name, result["id"])

    @rule(who=st.integers(0, MAX_AGENTS))
    def push(self, who):
        name, agent = self.agent(who)
        if self.do("push", agent.push) is not None:
            self.mark_pushed(name)

    def mark_pushed(self, name: str) -> None:
        self.has_pushed.add(name)
        mine = {i for i, o in self.origin.items() if o == name}
        self.pushed |= mine
        self.retraction_pushed |= mine & self.retracted

    @rule(who=st.integers(0, MAX_AGENTS))
    def pull_all(self, who):
        self.do("pull", self.agent(who)[1].pull)

    @rule(who=st.integers(0, MAX_AGENTS), picks=st.lists(st.integers(0, MAX_AGENTS), min_size=1, max_size=3))
    def pull_some(self, who, picks):
        """The picked peers, one at a time, in the order picked."""
        name, agent = self.agent(who)
        for pick in picks:
            peer = self.names[pick % len(self.names)]
            if peer != name and peer in self.has_pushed:
                self.do("pull", lambda: agent.pull(peers=[peer]))

    # --- a full round and what it must bring -----------------------------------------
    @precondition(lambda self: self.steps - self.last_round >= ROUND_EVERY and not self.commons.away)
    @rule(order=st.permutations(range(MAX_AGENTS)), singly=st.booleans())
    def full_round(self, order, singly):
        """Every agent pushes, then pulls twice (the second pass takes the cases the first opened),
        and again while the last pass changed the shared cases (the next takes the change):
        agents in the order drawn, and in the first pass, when `singly`, each peer on its own in
        that order, so the round's invariants hold whatever the order of pulls."""
        self.tally.rounds += 1
        self.last_round = self.steps
        self.round_spoilt = False
        self.roster_keys()
        self.sync_all([self.names[i] for i in order if i < len(self.names)], singly)
        if self.round_spoilt:
            return  # a command failed: what the round promises cannot be asked of it
        self.branches_put_back()
        agents = self.agents
        expected = {i: self.texts[i] for i in self.pushed - self.retracted}
        self.record(inv.nothing_lost(agents, expected, self.claim_of))
        self.record(inv.findable(agents, self.clock, fade_threshold=self.settings.fade_threshold,
                                 half_lives=self.settings.half_lives))
        self.record(inv.retractions_travel(agents, self.retraction_pushed))
        # two verdicts that disagree (on two agents before they met) expect nothing of either
        self.record(inv.verdicts_travel(agents, {i: t for i, t in self.refuted.items()
                                                 if i not in self.upheld and self.claim_of(t) not in self.looked_again}))
        self.record(inv.refutations_settled(agents))
        self.record(inv.convergence(agents))
        self.quiet_round()

    def sync_all(self, order: list[str], singly: bool) -> None:
        for name in order:
            if self.do("push", self.agents[name].push) is not None:
                self.mark_pushed(name)
        for name in order:
            agent = self.agents[name]
            if singly:
                for peer in (p for p in order if p != name and p in self.has_pushed):
                    self.do("pull", lambda: agent.pull(peers=[peer]))
            else:
                self.do("pull", agent.pull)
        # A case an agent opens, counts again or groups into a dispute in a pass reaches the
        # agents that pulled before it in the next one: passes go on while one changes the
        # shared cases (a join: it settles).
        for _ in range(MAX_CASE_PASSES):
            passed = [self.do("pull", self.agents[name].pull) for name in order]
            if not any(result and (result.get("cases_grouped") or (result.get("quarantine") or {}).get("changed"))
                       for result in passed):
                break

    def quiet_round(self) -> None:
        """With nothing new, another pass moves no head and changes no shared table."""
        heads, hashes = inv.heads(self.agents), {n: inv.table_hashes(a) for n, a in self.agents.items()}
        for name in self.names:
            self.do("push", self.agents[name].push)
        for name in self.names:
            self.do("pull", self.agents[name].pull)
        if self.round_spoilt:
            return  # a command of the pass failed: it was no quiet pass
        self.record(inv.unchanged(inv.QUIESCENCE, heads, inv.heads(self.agents), "head"))
        self.record(inv.unchanged(inv.IDEMPOTENCE, hashes, {n: inv.table_hashes(a) for n, a in self.agents.items()},
                                  "shared tables"))

    def roster_keys(self) -> None:
        """The owner names each agent's key of now on the roster (after a rotation: until then,
        peers following the roster refuse the new key)."""
        if not self.rostered:
            return
        owner = self.agents[self.names[0]]
        listed = {m["name"]: m["key"] for m in (self.do("roster", owner.roster) or {}).get("agents", [])}
        for name in self.names:
            if listed.get(name) not in (None, provision.agent_public_key(Home.at(self.home), name)):
                self.do("roster_add_agent", lambda: owner.roster_add_agent(name))

    # --- people's decisions ------------------------------------------------------------
    @rule(who=st.integers(0, MAX_AGENTS), pick=st.integers(0, 50), keep=st.sampled_from(["a", "b", "both"]))
    def resolve(self, who, pick, keep):
        """The authorised reviewer decides an open dispute as one agent sees it."""
        name, agent = self.agent(who)
        open_ = self.do("disputes", lambda: agent.disputes("open")) or []
        if not open_:
            return
        dispute = open_[pick % len(open_)]
        done = self.do("resolve", lambda: agent.resolve_dispute(dispute["dispute"], keep=keep, note="inspected",
                                                                by=REVIEWER))
        # what a verdict upholds is expected of no other (one made on another agent before they met
        # may stand instead), even where this one was only recorded here (NotShared: it goes with the
        # next push); what it refutes is expected only of a verdict that was made
        if keep == "both":
            self.upheld |= {dispute["a"]["memory"], dispute["b"]["memory"]}
            return
        loser, winner = (dispute[side]["memory"] for side in (("b", "a") if keep == "a" else ("a", "b")))
        self.upheld.add(winner)
        if done is not None and loser in self.texts:
            self.refuted[loser] = self.texts[loser]

    @rule(who=st.integers(0, MAX_AGENTS), pick=st.integers(0, 50), keep=st.sampled_from(["a", "b", "reopen"]))
    def review_again(self, who, pick, keep):
        """The authorised reviewer looks again at a dispute resolved as one agent sees it: it
        supersedes the verdict, or reopens the dispute."""
        name, agent = self.agent(who)
        resolved = self.do("disputes", lambda: agent.disputes("resolved")) or []
        if not resolved:
            return
        dispute = resolved[pick % len(resolved)]
        # Which side loses is the last look's (a verdict made on an agent that had not seen it,
        # before or after, stands under it): no verdict on these claims is expected to hold, whether
        # or not the look was shared at once (recorded here, it goes with the next push). Every case of
        # the dispute is decided again: the claims of its pairs, and of the sides' copies.
        cases = agent.tables.cases.by_id()
        held = [m for cid in dispute["cases"] if cid in cases for m in cases[cid].pair]
        held += [c["memory"] for side in ("a", "b") for c in dispute[side]["copies"]]
        texts = [dispute[side]["content"] for side in ("a", "b")] + [self.texts.get(i, "") for i in held]
        self.looked_again |= {self.claim_of(text) for text in texts} - {None}
        if keep == "reopen":
            self.do("reopen", lambda: agent.reopen_dispute(dispute["dispute"], note="again", by=REVIEWER))
        else:
            self.do("supersede", lambda: agent.resolve_dispute(dispute["dispute"], keep=keep, note="again",
                                                               by=REVIEWER, supersede=True))

    @rule(who=st.integers(0, MAX_AGENTS), memory=memories, endorse=st.booleans())
    def consensus(self, who, memory, endorse):
        """Its origin proposes a memory for main, or another agent endorses it."""
        origin, memory_id = memory
        name, agent = self.agent(who)
        if endorse and name != origin:
            self.do("endorse", lambda: agent.endorse(memory_id))
        elif not endorse:
            self.do("promote", lambda: self.agents[origin].promote(memory_id, note="measured twice"))

    @rule(who=st.integers(0, MAX_AGENTS), rotate=st.booleans())
    def upkeep(self, who, rotate):
        """A dream cycle, or a new key for the agent."""
        name, agent = self.agent(who)
        if rotate:
            self.do("rotate_key", agent.rotate_key)
            self.roster_keys()
            return
        self.do("dream", lambda: agent.dream(now=self.clock))

    @rule(who=st.integers(0, MAX_AGENTS), call=st.sampled_from(sorted(BAD_CALLS)))
    def bad_input(self, who, call):
        """A caller's mistake: a typed error with one line (or the work done, where the input is
        valid after all), and nothing written."""
        name, agent = self.agent(who)
        head = agent.repo.head(agent.branch)
        self.tally.commands["bad_input"] += 1
        try:
            BAD_CALLS[call](agent)
        except Exception as error:  # noqa: BLE001 (the no-crash invariant judges what escaped)
            self.record(inv.crash(f"bad_input:{call}", error))
            if agent.repo.head(agent.branch) != head:
                self.record([inv.Violation(inv.NO_CRASH, f"{name}: {call} failed but wrote a commit",
                                           f"{inv.NO_CRASH}:bad_input:{call}:wrote")])

    # --- faults ------------------------------------------------------------------------
    @precondition(lambda self: self.inject_faults and not self.commons.away)
    @rule(kind=st.sampled_from(FAULTS), who=st.integers(0, MAX_AGENTS), command=st.sampled_from(CHILD_COMMANDS),
          delay=st.integers(0, 30))
    def fault(self, kind, who, command, delay):
        """kill_9: a `cmem` command killed with -9 after `delay` tenths of a second, and the agent
        must open as before or after it; two_at_once: a `cmem` command in another process while
        this one pulls the same agent; commons_away: the commons is unreachable until it is back;
        commons_restored: a copy of the commons is kept, and the next time put back (every branch
        on it moves back)."""
        if kind == "commons_restored":
            self.tally.faults[self.commons.back_up_or_restore()] += 1
            return
        self.tally.faults[kind] += 1
        if kind == "commons_away":
            self.commons.leave()
            return
        name, agent = self.agent(who)
        if kind == "kill_9":
            agent.close()
        child = faults.start(self.home, [*command, "--agent", name])
        if kind == "two_at_once":
            self.do("pull", agent.pull)
        self.record(faults.finish(" ".join(command), child, kill_after=delay / 10 if kind == "kill_9" else None))
        self.reopen(name)
        if kind == "kill_9":
            self.record(faults.intact(name, self.agents[name]))

    def reopen(self, name: str) -> None:
        try:
            self.agents[name].close()
        except Exception:  # noqa: BLE001 (closed already, after a kill)
            pass
        opened = self.do("open", lambda: Agent.open(name, home=self.home, embedder=self.embedder()))
        if opened is None:
            self.record([inv.Violation(inv.ATOMICITY, f"{name} does not open after a child command",
                                       f"{inv.ATOMICITY}:does not open")])
            raise AssertionError(f"{name} does not open after a child command")
        self.agents[name] = opened

    @precondition(lambda self: self.commons.away)
    @rule()
    def commons_back(self):
        self.commons.come_back()

    # --- checked after every step --------------------------------------------------
    @invariant()
    def cheap_invariants(self):
        if not self.agents:
            return
        self.record(inv.bounds(self.agents, amplitude_cap=self.settings.amplitude_cap))
        self.record(inv.monotonic(self.agents, self.seen_versions))
        self.record(self.member_invariants())  # rogue.py: what a member's forgeries must not achieve
        self.record(inv.honest_trust(self.agents, self.names))  # trust in the rogue may fall as it will
        self.record(inv.no_distinct_hidden(self.agents, self.claim_of, threshold=self.settings.similarity_threshold,
                                           embed=self.embed))
        new = self.violations[self.raised:]
        self.raised = len(self.violations)
        assert not new, "; ".join(f"{v.signature}: {v.evidence}" for v in new)

    def claim_of(self, content: str):
        return self.generator.claim_of(content)

    def embed(self, texts: list[str]):
        key = tuple(texts)
        if key not in self.cosines:
            self.cosines[key] = self.agents[self.names[0]].embedder.embed(texts)
        return self.cosines[key]
