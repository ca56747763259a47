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
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, initialize, invariant, multiple, precondition, rule

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.errors import CollectiveError
from collective.model import utcnow

from . import invariants as inv
from .texts import KINDS, TextGenerator

MAX_AGENTS = 20
REVIEWER = "ana"
ROUND_EVERY = 8  # commands between full rounds, at least: a round is costly, and histories need writes


class Tally:
    """What a run did and found, over every history it ran."""

    def __init__(self):
        self.commands: Counter = Counter()
        self.errors: Counter = Counter()      # typed errors, by command and type: answers, not faults
        self.faults: Counter = Counter()      # faults injected, by kind
        self.violations: Counter = Counter()  # by invariant
        self.signatures: dict[str, str] = {}  # signature -> first evidence
        self.steps = 0
        self.rounds = 0
        self.simulated = timedelta()

    def to_dict(self) -> dict:
        return {"steps": self.steps, "rounds": self.rounds, "commands": dict(sorted(self.commands.items())),
                "typed_errors": dict(sorted(self.errors.items())), "faults_injected": dict(sorted(self.faults.items())),
                "violations": dict(sorted(self.violations.items())), "signatures": self.signatures,
                "simulated_minutes": round(self.simulated.total_seconds() / 60, 1)}


class CollectiveMachine(RuleBasedStateMachine):
    """Subclass with `configure` to choose the number of agents, the embedder and what is known."""

    min_agents, max_agents = 3, 5
    embedder: Callable = None           # () -> the embedder every agent shares
    is_known: Callable[[str], bool] = staticmethod(lambda signature: False)
    tally: Tally = Tally()
    workdir: Path | None = None         # where each history's folder goes (a test's tmp_path)

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
        self.has_pushed: set[str] = set()
        self.seen_versions: dict = {}
        self.violations: list[inv.Violation] = []
        self.raised = 0
        self.clock = utcnow()
        self.cosines: dict = {}
        self.round_spoilt = False
        self.last_round = self.steps = 0

    @classmethod
    def configure(cls, *, agents: tuple[int, int], embedder: Callable, is_known=None, tally: Tally | None = None,
                  workdir: Path | None = None):
        return type(cls.__name__, (cls,), {"min_agents": agents[0], "max_agents": agents[1],
                                           "embedder": staticmethod(embedder), "tally": tally or Tally(),
                                           "is_known": staticmethod(is_known or (lambda s: False)),
                                           "workdir": workdir})

    # --- setting up --------------------------------------------------------------
    @initialize(count=st.integers(0, MAX_AGENTS), seed=st.integers(0, 2**32 - 1))
    def start(self, count, seed):
        count = self.min_agents + count % (self.max_agents - self.min_agents + 1)
        self.generator = TextGenerator(random.Random(seed))
        home = self.root / "home"
        home.mkdir(parents=True)
        public = reviewer_keys.init(Home.at(home), REVIEWER)["public_key"]
        for i in range(count):
            name = f"agent-{i + 1}"
            agent = Agent.init(name, home=home, embedder=self.embedder())
            agent.add_remote("origin", f"file://{self.root / 'commons.db'}")
            agent.add_reviewer(REVIEWER, public)
            self.agents[name] = agent
        self.names = sorted(self.agents)
        self.settings = self.agents[self.names[0]].settings

    def teardown(self):
        for agent in self.agents.values():
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
            self.round_spoilt = True
            return None

    def record(self, found: list[inv.Violation]) -> None:
        for v in found:
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

    @rule(target=memories, who=st.integers(0, MAX_AGENTS), kind=st.sampled_from(KINDS),
          minutes=st.integers(0, 30))
    def store(self, who, kind, minutes):
        self.tick(minutes)
        name, agent = self.agent(who)
        text = self.generator.draw(kind)
        result = self.do("store", lambda: agent.store(text.content))
        if result is None:
            return multiple()
        self.texts[result.memory.id], self.origin[result.memory.id] = text.content, name
        return (name, result.memory.id)

    @rule(memory=consumes(memories))
    def forget(self, memory):
        name, memory_id = memory
        result = self.do("forget", lambda: self.agents[name].forget(memory_id))
        if result is not None:
            self.retracted.add(memory_id)

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

    @rule(who=st.integers(0, MAX_AGENTS), picks=st.lists(st.integers(0, MAX_AGENTS), max_size=3))
    def pull(self, who, picks):
        """All peers at once, or the picked ones one at a time in the order picked."""
        name, agent = self.agent(who)
        if not picks:
            self.do("pull", agent.pull)
            return
        for pick in picks:
            peer = self.names[pick % len(self.names)]
            if peer != name and peer in self.has_pushed:
                self.do("pull", lambda: agent.pull(peers=[peer]))

    # --- a full round and what it must bring -----------------------------------------
    @precondition(lambda self: self.steps - self.last_round >= ROUND_EVERY)
    @rule()
    def full_round(self):
        """Every agent pushes, then pulls twice (the second pass takes the cases the first opened)."""
        self.tally.rounds += 1
        self.last_round = self.steps
        self.round_spoilt = False
        self.sync_all()
        if self.round_spoilt:
            return  # a command failed: what the round promises cannot be asked of it
        agents = self.agents
        expected = {i: self.texts[i] for i in self.pushed - self.retracted}
        self.record(inv.nothing_lost(agents, expected, self.claim_of))
        self.record(inv.retractions_travel(agents, self.retraction_pushed))
        self.record(inv.verdicts_travel(agents, self.refuted))
        self.record(inv.convergence(agents))
        self.quiet_round()

    def sync_all(self) -> None:
        for name in self.names:
            if self.do("push", self.agents[name].push) is not None:
                self.mark_pushed(name)
        for _ in range(2):
            for name in self.names:
                self.do("pull", self.agents[name].pull)

    def quiet_round(self) -> None:
        """With nothing new, another pass moves no head and changes no shared table."""
        heads, hashes = inv.heads(self.agents), {n: inv.table_hashes(a) for n, a in self.agents.items()}
        for name in self.names:
            self.do("push", self.agents[name].push)
        for name in self.names:
            self.do("pull", self.agents[name].pull)
        self.record(inv.unchanged(inv.QUIESCENCE, heads, inv.heads(self.agents), "head"))
        self.record(inv.unchanged(inv.IDEMPOTENCE, hashes, {n: inv.table_hashes(a) for n, a in self.agents.items()},
                                  "shared tables"))

    # --- checked after every step --------------------------------------------------
    @invariant()
    def cheap_invariants(self):
        if not self.agents:
            return
        self.record(inv.bounds(self.agents, amplitude_cap=self.settings.amplitude_cap))
        self.record(inv.monotonic(self.agents, self.seen_versions))
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
