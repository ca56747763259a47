"""A member of the collective with write access to the commons: it writes what it likes
there, and the honest agents' state may change only through rows they verified
(member_checks.py). Where the collective has a roster, the rogue is on it as a plain agent
(it endorses nothing and reviews nothing): its signed word is taken where a member's is,
and must reach no further."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.errors import CollectiveError
from collective.model import Promotion, iso, utcnow
from collective.model.refs import MAIN_BRANCH, QUARANTINE_BRANCH, tracking, working_branch
from collective.quarantine import signing

from . import member_checks
from .member_checks import Forged

REVIEWER = "ana"
FORGED = "Zm9yZ2Vk"  # a signature no key made
PICKS = 50


class RogueMember:
    """Rules mixed into the simulator's machine, whose agents, commons and tally these use."""

    def __init__(self):
        super().__init__()
        self.rogue: Agent | None = None     # the member, made when it first acts (or on the roster)
        self.forged = Forged()              # what it forged, which no honest agent may take
        self.newcomer: str | None = None    # a name the roster names only later (join), once squatted
        self.squatter: Agent | None = None  # its agent under that name, with its own key
        self.put_back: dict[str, str] = {}  # agent -> the head it appended to the agent's branch on the commons

    def rogue_agent(self) -> Agent:
        """The rogue, made when it first acts: its own home, a reviewer key of its own named ana."""
        if self.rogue is None:
            rogue_home = self.root / "rogue"
            self.rogue = Agent.init("rogue-1", home=rogue_home, embedder=self.embedder())
            self.rogue.add_remote("origin", self.commons.url)
            reviewer_keys.init(Home.at(rogue_home), REVIEWER)
        return self.rogue

    def rogue_on_roster(self, owner: Agent) -> None:
        """The owners name the rogue as a plain agent, and one name only later (join)."""
        rogue = self.rogue_agent()
        owner.roster_add_agent(rogue.agent_id, key=rogue.identity.public_key, endorses=False)
        self.newcomer = f"agent-{len(self.agents) + 1}"

    def rogue_agents(self) -> list[Agent]:
        return [a for a in (self.rogue, self.squatter) if a is not None]

    def rogue_does(self, command: str, work) -> None:
        """Run one of the rogue's acts; `work` returns False when it found nothing to act on
        (tallied as `command:idle`, so a run shows which attacks were made)."""
        self.tally.commands[command] += 1
        try:
            if work(self.rogue_agent()) is False:
                self.tally.commands[f"{command}:idle"] += 1
        except CollectiveError as error:  # the commons away, a race lost: the rogue's trouble
            self.tally.errors[f"{command}:{type(error).__name__}"] += 1

    def member_invariants(self) -> list:
        return [*member_checks.verified_joins(self.agents, self.forged),
                *member_checks.verdict_reach(self.agents, self.claims_of)]

    def forged_text(self) -> str:
        return f"The override code of hatch {self.forged.count()} is 0000."

    def claims_of(self, memory_id: str):
        """The claim of a memory the simulator stored (None for any other)."""
        return self.claim_of(self.texts[memory_id]) if memory_id in self.texts else None

    @precondition(lambda self: self.rostered and not self.commons.away)
    @rule(pick=st.integers(0, PICKS), keep=st.sampled_from(["a", "b"]))
    def rogue_verdict(self, pick, keep):
        """It signs a verdict on an open case with its own key named ana, and shares it: no
        honest agent may apply it or close the case for it."""
        def overrule(rogue: Agent) -> bool:
            rogue.repo.fetch("origin")
            rogue.quarantine.take_from("origin")
            open_ = rogue.disputes("open")
            if open_:
                rogue.resolve_dispute(open_[pick % len(open_)]["dispute"], keep=keep, note="squatted", by=REVIEWER)
            return bool(open_)
        self.rogue_does("rogue_verdict", overrule)

    @precondition(lambda self: self.rostered and not self.commons.away and self.agents)
    @rule(who=st.integers(0, PICKS))
    def rogue_main(self, who):
        """It puts a memory on the commons' main in an honest agent's name, its signature and
        promotion forged: no honest agent's main may hold it."""
        names = sorted(self.agents)
        origin = names[who % len(names)]

        def forge(rogue: Agent) -> None:
            self.forged.main.add(forge_on_main(rogue, origin, self.forged_text()))
        self.rogue_does("rogue_main", forge)

    @precondition(lambda self: not self.commons.away and self.has_pushed)
    @rule(who=st.integers(0, PICKS), edit=st.booleans())
    def rogue_tamper(self, who, edit):
        """It appends a commit to an honest agent's branch on the commons: one of the agent's
        memories edited, or one added in its name (its signature forged). Peers that pull it
        refuse the forged row; the agent's next push refuses the commit (branch_tampered) and
        puts its branch back (checked after the next round's pushes), and peers read on from
        there; no honest agent may hold the forged row."""
        victims = sorted(self.has_pushed & set(self.agents))
        victim = victims[who % len(victims)]
        branch = working_branch(victim)

        def tamper(rogue: Agent) -> bool:
            repo, text = rogue.repo, self.forged_text()
            row = rogue.store(text).memory.to_row()  # a draft of its own first, as a writer's row
            if branch not in repo.fetch("origin"):
                return False
            repo.create_branch_at(branch, tracking("origin", branch))
            with repo.on_branch(branch), repo.transaction():
                theirs = sorted(r["id"] for r in rogue.tables.memories.rows(columns=("id", "origin_agent"))
                                if r["origin_agent"] == victim)
                if edit and theirs:
                    row = {"id": theirs[who % len(theirs)]}
                    rogue.tables.memories.set(row["id"], content=text, summary=text)
                else:
                    row.update(origin_agent=victim, signature=FORGED)
                    rogue.tables.memories.write_rows([row])
                self.forged.rows.add((row["id"], text))
                repo.commit(f"{victim} learns", author=victim)
            repo.push("origin", branch)
            self.put_back[victim] = repo.head(branch)
            return True
        self.rogue_does("rogue_tamper", tamper)

    def branches_put_back(self) -> None:
        """After a round's pushes: each agent whose branch another hand wrote on the commons
        has its own head there again."""
        if not self.put_back:
            return
        heads = self.rogue_agent().repo.fetch("origin")
        for name, forged_head in sorted(self.put_back.items()):
            self.record(member_checks.own_branch(name, self.agents[name], forged_head,
                                                 heads.get(working_branch(name))))
        self.put_back.clear()

    @precondition(lambda self: self.rostered and not self.commons.away)
    @rule(pick=st.integers(0, PICKS))
    def rogue_link(self, pick):
        """On the roster, it signs a link joining an open case to the dispute of another
        case of other claims, open or decided (the smallest such id, so the link wins the
        join), and shares it: the link is taken, yet no verdict on that dispute, first or
        superseding, may resolve the case on any honest agent (member_checks.verdict_reach)."""
        def hijack(rogue: Agent) -> bool:
            repo = rogue.repo
            if QUARANTINE_BRANCH not in repo.fetch("origin"):
                return False
            repo.create_branch_at(QUARANTINE_BRANCH, tracking("origin", QUARANTINE_BRANCH))
            known = [c for c in rogue.tables.cases.all(as_of=QUARANTINE_BRANCH)
                     if None not in map(self.claims_of, c.pair)]
            open_ = [c for c in known if not c.resolution]
            case = open_[pick % len(open_)] if open_ else None
            claims = {self.claims_of(m) for m in case.pair} if case else set()
            targets = [c.id for c in known if {self.claims_of(m) for m in c.pair} != claims]
            if case is None or not targets or (case.dispute and case.dispute <= min(targets)):
                return False
            hijacked = signing.sign_link(case.replace(dispute=min(targets)), rogue.identity, rogue.agent_id)
            with repo.on_branch(QUARANTINE_BRANCH), repo.transaction():
                rogue.tables.cases.write([hijacked])
                repo.commit("quarantine: link", author=rogue.agent_id)
            repo.push("origin", QUARANTINE_BRANCH)
            return True
        self.rogue_does("rogue_link", hijack)

    # --- a name the roster names later --------------------------------------------------
    @precondition(lambda self: self.newcomer and self.newcomer not in self.agents and self.squatter is None
                  and not self.commons.away)
    @rule()
    def rogue_squat(self):
        """It makes an agent under the name the roster names next, with its own key, stores
        and pushes: honest agents hold it (not_on_roster), taking and trusting nothing of it."""
        def squat(rogue: Agent) -> None:
            self.squatter = Agent.init(self.newcomer, home=self.root / "rogue", embedder=self.embedder())
            self.squatter.add_remote("origin", self.commons.url)
            self.forged.keys[self.newcomer] = self.squatter.identity.public_key
            self.forged.rows.add((self.squatter.store(self.forged_text()).memory.id, None))
            self.squatter.push()
        self.rogue_does("rogue_squat", squat)

    @precondition(lambda self: self.squatter is not None and self.newcomer and self.newcomer not in self.agents
                  and not self.commons.away)
    @rule()
    def join(self):
        """The owners name the agent of the squatted name (its key from its home) on the
        roster; it takes the roster at its first pull, and its first push puts its branch in
        the place of the squatter's; from then on it works as any agent."""
        name, owner = self.newcomer, self.agents[self.names[0]]
        agent = self.do("join", lambda: Agent.init(name, home=self.home, embedder=self.embedder()))
        if agent is None or self.do("roster_add_agent", lambda: owner.roster_add_agent(name)) is None:
            self.newcomer = None  # no join in this history
            if agent is not None:
                agent.close()
            return
        agent.add_remote("origin", self.commons.url)
        self.agents[name] = agent
        self.names = sorted(self.agents)
        pulled = self.do("pull", agent.pull)
        if pulled is None:
            return  # a pull that failed took no roster: the push that follows may rightly stop
        squatted = self.squatter.repo.head(working_branch(name))
        # the squatter's branch, unless a restored commons took it away: then nothing was there
        if self.rogue_agent().repo.fetch("origin").get(working_branch(name)) != squatted:
            return
        pushed = self.do("push", agent.push)
        if pushed is not None:
            self.mark_pushed(name)
        held = self.rogue_agent().repo.fetch("origin").get(working_branch(name))
        self.record(member_checks.own_branch(name, agent, squatted, held, pushed=pushed is not None))


def forge_on_main(agent: Agent, origin: str, content: str) -> str:
    """What a member with write access does to the commons' main: a memory in `origin`'s
    name, its signature and promotion forged, committed over whatever main held and
    pushed by force. Returns its id."""
    repo, at = agent.repo, iso(utcnow())
    row = agent.store(content).memory.to_row()
    row.update(origin_agent=origin, signature=FORGED)
    repo.fetch("origin")
    if tracking("origin", MAIN_BRANCH) in repo.remote_branches():
        repo.create_branch_at(MAIN_BRANCH, tracking("origin", MAIN_BRANCH))
    with repo.on_branch(MAIN_BRANCH):
        repo.migrate(author=agent.agent_id, now=at)
        with repo.transaction():
            agent.tables.memories.write_rows([row])
            agent.tables.promotions.write([Promotion(memory_id=row["id"], origin_agent=origin, proposed_by=origin,
                                                     proposed_at=at, proposal_signature=FORGED)])
            repo.commit(f"promote {row['id']}: approved by {REVIEWER}", author=agent.agent_id)
    repo.push("origin", MAIN_BRANCH, force=True)
    return row["id"]
