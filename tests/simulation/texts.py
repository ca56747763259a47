"""A small seeded generator of memory texts, each tied to the claim it makes.

A claim is (topic, object, polarity): what the text asserts about which thing.
Two texts say the same thing exactly when their claims are equal, so the
simulator knows, without any judge, which absorptions are allowed (same claim)
and which hide a distinct fact (another object or the opposite polarity).

Kinds of text, as a collective meets them: the same fact stored by several
agents, its contradiction (the other polarity), a paraphrase (same claim, other
words), a look-alike about another object, and private notes no one else writes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# topic -> (affirmed wording, denied wording, paraphrase of the affirmed wording), "{o}" the object
TOPICS: dict[str, tuple[str, str, str]] = {
    "pump": ("The coolant pump in module {o} is safe to operate.",
             "The coolant pump in module {o} is not safe to operate.",
             "Module {o}'s coolant pump is safe to operate."),
    "valve": ("Valve {o} on the coolant loop is open.",
              "Valve {o} on the coolant loop is not open.",
              "The coolant loop's valve {o} is open."),
    "gate": ("Gate {o} is closed for maintenance.",
             "Gate {o} is not closed for maintenance.",
             "Maintenance has gate {o} closed."),
    "rover": ("Rover {o} has a fully charged battery.",
              "Rover {o} does not have a fully charged battery.",
              "The battery of rover {o} is fully charged."),
    "freezer": ("Freezer {o} holds its temperature at -20 C.",
                "Freezer {o} does not hold its temperature at -20 C.",
                "The temperature in freezer {o} holds at -20 C."),
}
OBJECTS = ("A", "B", "C", "D", "E", "F")
PRIVATE = ("Sample {n} from crater {c} holds hematite.", "Drill log {n}: core {c} reached the ice layer.",
           "Crew note {n}: the airlock seal on hatch {c} was replaced.")
KINDS = ("shared", "contradiction", "paraphrase", "other_object", "private")


@dataclass(frozen=True)
class Claim:
    topic: str
    obj: str
    polarity: int  # 1 affirms, -1 denies; private notes are their own topic


@dataclass(frozen=True)
class Text:
    content: str
    claim: Claim
    kind: str


def wording(claim: Claim, paraphrase: bool = False) -> str:
    affirmed, denied, other = TOPICS[claim.topic]
    if claim.polarity < 0:
        return denied.format(o=claim.obj)
    return (other if paraphrase else affirmed).format(o=claim.obj)


class TextGenerator:
    """Texts drawn from a seeded random.Random, remembering every claim made so far, so that
    contradictions, paraphrases and look-alikes refer to what agents already said."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.said: list[Claim] = []
        self.claims: dict[str, Claim] = {}  # content -> claim, for every text ever made
        self.private_count = 0

    def draw(self, kind: str | None = None) -> Text:
        kind = kind or self.rng.choice(KINDS)
        if kind != "private" and not self.said:
            kind = "shared"
        if kind == "private":
            return self._private()
        if kind == "shared":
            claim = self.rng.choice(self.said) if self.said and self.rng.random() < 0.5 else self._fresh()
            return self._text(wording(claim), claim, kind)
        base = self.rng.choice(self.said)
        if kind == "contradiction":
            claim = Claim(base.topic, base.obj, -base.polarity)
            return self._text(wording(claim), claim, kind)
        if kind == "paraphrase":
            claim = Claim(base.topic, base.obj, 1)
            return self._text(wording(claim, paraphrase=True), claim, kind)
        others = [o for o in OBJECTS if o != base.obj]
        claim = Claim(base.topic, self.rng.choice(others), base.polarity)
        return self._text(wording(claim), claim, kind)

    def claim_of(self, content: str) -> Claim | None:
        """The claim a generated text makes; None for a text made elsewhere (a reviewer's)."""
        return self.claims.get(content)

    def _fresh(self) -> Claim:
        return Claim(self.rng.choice(sorted(TOPICS)), self.rng.choice(OBJECTS), 1)

    def _private(self) -> Text:
        self.private_count += 1
        template = self.rng.choice(PRIVATE)
        content = template.format(n=self.private_count, c=self.rng.randint(1, 99))
        return self._text(content, Claim(f"private:{content}", "", 1), "private")

    def _text(self, content: str, claim: Claim, kind: str) -> Text:
        if claim not in self.said and not claim.topic.startswith("private:"):
            self.said.append(claim)
        self.claims[content] = claim
        return Text(content, claim, kind)
