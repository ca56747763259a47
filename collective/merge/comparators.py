"""Comparators: how two memories that meet are classified (constructive, partial,
destructive, independent). The merge and a dream's detect stage ask the same one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Mapping, Protocol, Sequence

from ..core import phase as phase_mod
from ..core import wave
from ..index.lexical import terms
from ..judge.align import says_more
from ..judge.reader import analyse_text
from ..judge.stance import estimate as estimate_stance
from ..model import Memory
from ..model.enums import Relation

# An agreement between texts that share no word is absorbed only from this cosine up: below
# it, what the judge calls the same statement may be two facts the embedder puts near each
# other (unrelated texts reach 0.5 to 0.6 under a hashing embedder), and absorbing hides one.
# Kept apart, both stay recallable. (The judge data's agreeing pairs without a shared word lie
# at cosines 0.36 to 0.57 under the default embedder: they are kept as two memories.)
WORDLESS_AGREEMENT = 0.75
# The built-in judges' readers are made for English: in a text mostly written in other scripts
# (Chinese, Cyrillic, Arabic...) they see no negation, no number word, no antonym, and called
# "水泵 P-101 可以安全运行" and "水泵 P-101 不可以安全运行" (can / cannot operate safely) the same
# statement. Such texts are held as one only when word for word the same.
FOREIGN_SCRIPT_SHARE = 0.3  # of a text's letters, outside the Latin ones


@dataclass(frozen=True)
class PairVerdict:
    relation: Relation
    dphi: float
    similarity: float
    confidence: float = 1.0
    reason: str = ""


class Comparator(Protocol):
    """Decides how two memories relate. `candidate_floor`: lowest cosine worth asking about."""

    candidate_floor: float

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict: ...


class PhaseComparator:
    """DESIGN's literal rule: similarity gate, then the stored phase difference."""

    fork_safe = True  # pure: a pull may run it in forked workers

    def __init__(self, threshold: float = wave.SIMILARITY_THRESHOLD):
        self.candidate_floor = threshold
        self.threshold = threshold

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict:
        dphi = wave.phase_difference(local.phase, remote.phase)
        relation = wave.classify(similarity, dphi, threshold=self.threshold)
        return PairVerdict(relation, dphi, similarity, reason=f"cosine {similarity:.2f}, phase difference {dphi:.2f}")


class JudgeComparator:
    """A pairwise judge reads the two texts; explicit writer stances turn its verdict.

    The judge sees only text and cosine. A writer who stored "X" with stance
    deny asserts "not X", so the pair's phase difference shifts by how far each
    explicit stance departs from what the text alone says. The judge is asked down to its
    candidate floor (its reading is reported); any relation but independent also needs
    `threshold` ([merge] similarity_threshold), as the wave rule has it.
    """

    def __init__(self, judge, *, candidate_floor: float | None = None,
                 threshold: float = wave.SIMILARITY_THRESHOLD):
        self.judge = judge
        self.candidate_floor = candidate_floor if candidate_floor is not None else getattr(judge, "candidate_floor", 0.4)
        self.threshold = threshold  # [merge] similarity_threshold: the least cosine at which two memories interfere

    @property
    def fork_safe(self) -> bool:
        """Only a judge that says it is pure runs in forked workers: a callback may hold
        connections (an LLM client) that a child must not share."""
        return bool(getattr(self.judge, "fork_safe", False))

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict:
        return self._turned(self.judge.judge(local.content, remote.content, similarity), local, remote, similarity)

    def relate_many(self, pairs: Sequence[tuple[Memory, Memory, float]]) -> list[PairVerdict]:
        """`relate` for many pairs at once: a judge with `judge_many` (the cascade, whose
        cross-encoder reads the pairs it leaves open in one go) is asked once, told the cosine
        from which an agreement is absorbed."""
        many = getattr(self.judge, "judge_many", None)
        if many is None:
            return [self.relate(local, remote, s) for local, remote, s in pairs]
        verdicts = many([(local.content, remote.content, s) for local, remote, s in pairs], absorb_at=self.threshold)
        return [self._turned(v, local, remote, s) for v, (local, remote, s) in zip(verdicts, pairs)]

    def _turned(self, verdict, local: Memory, remote: Memory, similarity: float) -> PairVerdict:
        """The judge's verdict turned by the writers' explicit stances, then gated by the threshold."""
        if verdict.relation == wave.INDEPENDENT:
            return PairVerdict(wave.INDEPENDENT, math.nan, similarity, verdict.confidence, verdict.reason)
        turn = (phase_mod.stance_offset(local.content, local.phase, local.stance, estimate_stance)
                - phase_mod.stance_offset(remote.content, remote.phase, remote.stance, estimate_stance))
        dphi = wave.phase_difference(wave.RELATION_PHASE[verdict.relation] + turn, 0.0)
        # the design's interference threshold holds for every relation: below it the judge's
        # reading stands in its reason, but the pair does not interfere. Measured on real text
        # (scripts/bench_merge_quality.py), a dispute below it was false 14 times in 20.
        relation = wave.classify(similarity, dphi, threshold=self.threshold)
        apart = None
        if relation == wave.INDEPENDENT:
            apart = (f"They do not interfere: cosine {similarity:.2f} is below the similarity threshold "
                     f"{self.threshold:.2f}.")
        elif relation == wave.CONSTRUCTIVE:
            apart = self._not_one(local, remote, similarity)
            more = None if apart else self._says_more(local, remote)
            if more:
                return PairVerdict(wave.PARTIAL, wave.RELATION_PHASE[wave.PARTIAL], similarity, verdict.confidence,
                                   f"{verdict.reason} Partly the same: b also says {', '.join(more)}, which a does "
                                   f"not; absorbed, that would leave recall, so the two are kept and linked.")
        if apart:
            return PairVerdict(wave.INDEPENDENT, math.nan, similarity, verdict.confidence, f"{verdict.reason} {apart}")
        return PairVerdict(relation, dphi, similarity, verdict.confidence, verdict.reason)

    def _says_more(self, local: Memory, remote: Memory) -> tuple[str, ...]:
        """The words the remote text adds to the local one it would be absorbed into, when
        it adds to it (an elaboration): absorbed, what it adds would leave recall."""
        if local.content == remote.content:
            return ()
        analyse = getattr(self.judge, "analyse", None) or analyse_text
        return says_more(analyse(local.content), analyse(remote.content))

    def _not_one(self, local: Memory, remote: Memory, similarity: float) -> str | None:
        """Why an agreement the judge found is still not absorbed, if it is not."""
        a, b = local.content, remote.content
        if similarity < WORDLESS_AGREEMENT and not shared_words(local, remote):
            return (f"Not held as one: they share no word, and their cosine {similarity:.2f} is below "
                    f"{WORDLESS_AGREEMENT:.2f}.")
        if getattr(self.judge, "latin_only", False) and a != b and (foreign_script(a) or foreign_script(b)):
            return ("Not held as one: the judge reads English, this is written in another script, and the two "
                    "are not word for word the same.")
        return None


def foreign_script(text: str) -> bool:
    """Whether at least FOREIGN_SCRIPT_SHARE of a text's letters lie outside the Latin
    alphabets (U+0000-U+024F, U+1E00-U+1EFF: English, accents, "µ"; a "kΩ" stays Latin)."""
    if text.isascii():  # nearly every text: no letter to look at
        return False
    letters = [c for c in text if c.isalpha()]
    foreign = sum(not (c <= "\u024f" or "\u1e00" <= c <= "\u1eff") for c in letters)
    return bool(letters) and foreign >= FOREIGN_SCRIPT_SHARE * len(letters)


def shared_words(a: Memory, b: Memory) -> bool:
    """Whether two memories' texts have a word in common (stop words aside, stemmed)."""
    return not set(terms(a.content)).isdisjoint(terms(b.content))


class Decided:
    """A comparator whose verdicts, by (local id, remote id), were reached apart from the
    plan (on every core). `pending` yields more of them as workers finish; a pair found
    nowhere goes to `inner`."""

    def __init__(self, inner: Comparator, verdicts: dict[tuple[str, str], PairVerdict],
                 pending: Iterator[Mapping[tuple[str, str], PairVerdict]] = iter(())):
        self.inner = inner
        self.candidate_floor = inner.candidate_floor
        self.verdicts = verdicts
        self.pending = pending

    def relate(self, local: Memory, remote: Memory, similarity: float) -> PairVerdict:
        key = (local.id, remote.id)
        while key not in self.verdicts:
            more = next(self.pending, None)
            if more is None:
                return self.inner.relate(local, remote, similarity)
            self.verdicts.update(more)
        return self.verdicts[key]
