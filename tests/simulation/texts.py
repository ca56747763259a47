"""A small seeded generator of memory texts, each tied to the claim it makes.

A claim is (topic, object, polarity): what the text asserts about which thing.
Two texts say the same thing exactly when their claims are equal, so the
simulator knows, without any judge, which absorptions are allowed (same claim)
and which hide a distinct fact (another object or the opposite polarity).

Kinds of text, as a collective meets them: the same fact stored by several
agents, its contradiction (the other polarity), a paraphrase (same claim, other
words), a look-alike about another object, and private notes no one else writes.

Real text (`real_texts`) takes a share of the draws: texts of our chats and of the
public corpora scripts/merge_corpora.py loads, each a claim of its own (those labelled as
agreeing with another are left out). Which real texts contradict each other is not tracked,
so only the templates make contradictions, paraphrases and look-alikes; a real text is
stored as a standalone fact, by one agent or by several.
"""

from __future__ import annotations

import functools
import importlib.util
import random
from dataclasses import dataclass
from pathlib import Path

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
# the text sources, and the share of draws each takes from real text
SOURCES = {"templates": 0.0, "mixed": 1 / 3, "real": 1.0}
REAL_PER_CORPUS = 120  # texts sampled from each corpus, with a fixed seed: the same pool on every run
CORPUS_SEED = 7


@functools.cache
def real_texts() -> dict[str, tuple[str, ...]]:
    """Corpus -> its texts: our dev chats (in the repository) and each public corpus already in
    scripts/merge_corpora.py's cache (never downloaded here: the simulator reaches no network),
    the public ones from their "train" part. Every text but those labelled as agreeing with
    another (a paraphrase, which may rightly be absorbed): each states a fact of its own."""
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    spec = importlib.util.spec_from_file_location("merge_corpora", scripts / "merge_corpora.py")
    corpora = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpora)
    cache, pool = corpora.default_cache(), {}
    for name in corpora.CORPORA:
        if not corpora.is_cached(name, cache):
            continue
        part = {"chats": {"part": "dev"}, "pyfaq": {}}.get(name, {"part": "train"})  # the FAQ has no parts
        loaded = corpora.load_corpus(name, cache, REAL_PER_CORPUS, CORPUS_SEED, **part)
        labels = loaded["truth"]["labels"]
        pool[name] = tuple(t for t in loaded["a"] + loaded["b"] if labels.get(t) != "agreement")
    return pool


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

    def __init__(self, rng: random.Random, source: str = "templates"):
        self.rng = rng
        self.share = SOURCES[source]
        self.real = real_texts() if self.share else {}
        self.said: list[Claim] = []
        self.real_said: list[str] = []
        self.claims: dict[str, Claim] = {}  # content -> claim, for every text ever made
        self.private_count = 0

    def draw(self, kind: str | None = None) -> Text:
        # templates alone draw nothing more from rng: their histories stay what they were
        if self.real and self.rng.random() < self.share:
            return self._real()
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

    def _real(self) -> Text:
        """A real text: half the time one already said (another agent states the same fact)."""
        if self.real_said and self.rng.random() < 0.5:
            content = self.rng.choice(self.real_said)
        else:
            content = self.rng.choice(self.real[self.rng.choice(sorted(self.real))])
            if content not in self.real_said:
                self.real_said.append(content)
        return self._text(content, Claim(f"real:{content}", "", 1), "real")

    def _text(self, content: str, claim: Claim, kind: str) -> Text:
        if claim not in self.said and claim.topic in TOPICS:  # what contradictions and look-alikes refer to
            self.said.append(claim)
        self.claims[content] = claim
        return Text(content, claim, kind)
