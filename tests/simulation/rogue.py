"""A member of the collective outside its roster, with write access to the commons: it
writes what it likes there, and the honest agents' state may change only through rows
they verified (invariants.verified_joins)."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.errors import CollectiveError
from collective.model import Promotion, iso, utcnow
from collective.model.refs import MAIN_BRANCH, tracking

REVIEWER = "ana"
FORGED = "Zm9yZ2Vk"  # a signature no key made


class RogueMember:
    """Rules mixed into the simulator's machine, whose agents, commons and tally these use."""

    def rogue_agent(self) -> Agent:
        """The rogue, made when it first acts: its own home, a reviewer key of its own named ana."""
        if self.rogue is None:
            rogue_home = self.root / "rogue"
            self.rogue = Agent.init("rogue-1", home=rogue_home, embedder=self.embedder())
            self.rogue.add_remote("origin", self.commons.url)
            reviewer_keys.init(Home.at(rogue_home), REVIEWER)
        return self.rogue

    def rogue_does(self, command: str, work) -> None:
        self.tally.commands[command] += 1
        try:
            work(self.rogue_agent())
        except CollectiveError as error:  # the commons away, a race lost: the rogue's trouble
            self.tally.errors[f"{command}:{type(error).__name__}"] += 1

    @precondition(lambda self: self.rostered and not self.commons.away)
    @rule(pick=st.integers(0, 50), keep=st.sampled_from(["a", "b"]))
    def rogue_verdict(self, pick, keep):
        """It signs a verdict on an open case with its own key named ana, and shares it: no
        honest agent may apply it or close the case for it."""
        def squat(rogue: Agent) -> None:
            rogue.repo.fetch("origin")
            rogue.quarantine.take_from("origin")
            open_ = rogue.disputes("open")
            if open_:
                rogue.resolve_dispute(open_[pick % len(open_)]["dispute"], keep=keep, note="squatted", by=REVIEWER)
        self.rogue_does("rogue_verdict", squat)

    @precondition(lambda self: self.rostered and not self.commons.away and self.agents)
    @rule(who=st.integers(0, 20))
    def rogue_main(self, who):
        """It puts a memory on the commons' main in an honest agent's name, its signature and
        promotion forged: no honest agent's main may hold it."""
        names = sorted(self.agents)
        origin = names[who % len(names)]

        def forge(rogue: Agent) -> None:
            repo, at = rogue.repo, iso(utcnow())
            row = rogue.store(f"The override code of hatch {len(self.forged)} is 0000.").memory.to_row()
            row.update(origin_agent=origin, signature=FORGED)
            repo.fetch("origin")
            if tracking("origin", MAIN_BRANCH) in repo.remote_branches():
                repo.create_branch_at(MAIN_BRANCH, tracking("origin", MAIN_BRANCH))
            with repo.on_branch(MAIN_BRANCH):
                repo.migrate(author=rogue.agent_id, now=at)
                with repo.transaction():
                    rogue.tables.memories.write_rows([row])
                    rogue.tables.promotions.write([Promotion(memory_id=row["id"], origin_agent=origin,
                                                             proposed_by=origin, proposed_at=at,
                                                             proposal_signature=FORGED)])
                    repo.commit(f"promote {row['id']}: approved by {REVIEWER}", author=rogue.agent_id)
            self.forged.add(row["id"])
            repo.push("origin", MAIN_BRANCH, force=True)
        self.rogue_does("rogue_main", forge)
