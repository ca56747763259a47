"""`CascadeJudge`, the default judge where the cross-encoder is installed: the learned
judge first, the cross-encoder on what it leaves open.

The slot readers and the learned combiner (`learned.LearnedJudge`) are fast and
right about numbers and units, times, days and identifiers ("pump P-101" /
"pump P-102"). They cannot know that "in theatre having surgery" rules out
"discharged home". So each pair is first weighed as the learned judge weighs it,
and the cross-encoder (`cross_encoder.CrossEncoder`, read in both orders)
reads it only when:

- the learned judge would call it constructive at a cosine the caller absorbs
  at (`absorb_at`, the merge's similarity threshold): absorbing hides a
  memory, so every absorption is checked; or
- the learned judge's most likely relation is below `gate` (uncertain),

and never when the verdict rests on a clash of numbers, times or days, on
two different identities, or on the same words an aside apart: those the
readers settle. A second small model (`judge_data/cascade.json`,
scripts/train_cascade.py) weighs the learned judge's probabilities and the
encoder's reading together. `judge_many` weighs all the pairs of a call first
and hands the open ones to the encoder in one go, which is how the merge asks
(`merge.JudgeComparator.relate_many`).
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from typing import Sequence

import numpy as np

from .cross_encoder import READING, CrossEncoder, shipped
from .features import FEATURES
from .learned import SLOT_CLASHES, Combiner, LearnedJudge, Weighed, decide, texts_apart
from .lexicon import CANDIDATE_FLOOR
from .protocol import RELATIONS, Verdict, floor_verdict

CASCADE_FILE = "cascade.json"
# the first look's evidence the second model also sees
CARRIED = ("any_clash", "different_objects", "polarity_one", "rule_destructive", "cosine")
CASCADE_FEATURES = tuple(f"log_p_{r}" for r in RELATIONS) + READING + CARRIED
_CARRIED_AT = tuple(FEATURES.index(name) for name in CARRIED)
_MATCHED_BY_SLOTS = tuple(FEATURES.index(f"match_{s}") for s in ("number", "time", "day"))
_OTHER_SIGNS = tuple(FEATURES.index(n) for n in ("any_clash", "polarity_one", "loose_state_clash", "retracts_one"))
_DIFFERENT, _COSINE = FEATURES.index("different_objects"), FEATURES.index("cosine")
_CONSTRUCTIVE, _DESTRUCTIVE, _INDEPENDENT = (RELATIONS.index(r) for r in ("constructive", "destructive", "independent"))
_CE_CONTRADICTS = tuple(READING.index(n) for n in ("ce_destructive", "ce_ab_contradiction", "ce_ba_contradiction"))


def cascade_features(p: Sequence[float], x: Sequence[float], reading: Sequence[float]) -> list[float]:
    """The second model's inputs, in the order of `CASCADE_FEATURES`."""
    return [math.log(max(v, 1e-6)) for v in p] + list(reading) + [x[k] for k in _CARRIED_AT]


def encoder_disagrees(reading: Sequence[float]) -> bool:
    """The encoder's own sign of a contradiction, which the readers may not see."""
    return max(reading[k] for k in _CE_CONTRADICTS) >= 0.5


# A confident "neutral" of the encoder, read both ways, vetoes a dispute the readers alone
# would open: it read the pair as another fact, not the same claim.
NEUTRAL_VETO = 0.8
_CE_NEUTRAL = tuple(READING.index(n) for n in ("ce_ab_neutral", "ce_ba_neutral"))


def encoder_reads_neutral(reading: Sequence[float]) -> bool:
    return min(reading[k] for k in _CE_NEUTRAL) >= NEUTRAL_VETO


def readers_agree(x: Sequence[float]) -> bool:
    """The readers matched a number, time or day and found no sign of disagreement ("14:00"
    and "2 pm"): their ground, which the encoder (no arithmetic, no clock) may not overturn."""
    return any(x[k] for k in _MATCHED_BY_SLOTS) and not any(x[k] for k in _OTHER_SIGNS)


class Cascade(Combiner):
    """The second model: a Combiner over `CASCADE_FEATURES`, with the gate it was fitted with."""

    expected_features = CASCADE_FEATURES

    def __init__(self, spec: dict):
        super().__init__(spec)
        self.gate = float(spec["gate"])


@lru_cache(maxsize=1)
def shipped_cascade() -> Cascade | None:
    path = resources.files("collective.judge") / "judge_data" / CASCADE_FILE
    return Cascade(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None


class CascadeJudge(LearnedJudge):
    """The learned judge, with the cross-encoder on the pairs it leaves open; pure and offline."""

    fork_safe = True  # the encoder builds its session per process

    def __init__(self, *, floor: float = CANDIDATE_FLOOR, cache_size: int = 65536, combiner: Combiner | None = None,
                 encoder: CrossEncoder | None = None, cascade: Cascade | None = None):
        super().__init__(floor=floor, cache_size=cache_size, combiner=combiner)
        self.encoder = encoder or shipped()
        self.cascade = cascade or shipped_cascade()
        self.opened = 0  # pairs the encoder read

    def settled(self, w: Weighed, absorb_at: float = 0.0) -> bool:
        """Whether the first look stands without the encoder. `absorb_at`: the cosine from
        which the caller absorbs an agreement (the merge's similarity threshold)."""
        if self.encoder is None or self.cascade is None or w.final is not None:
            return True
        if w.k == _DESTRUCTIVE and any(w.x[i] for i in SLOT_CLASHES):
            return True  # numbers, times and days: the readers' own ground
        if w.k == _INDEPENDENT and w.x[_DIFFERENT] > 0:
            return True  # two identities ("P-101" / "P-102")
        if w.A.words == w.B.words and not w.rule.clashed:
            return True  # the same words, only an aside or punctuation apart: one claim
            # (the encoder reads "(report 12)" / "(report 20451)" as a contradiction)
        if w.k == _CONSTRUCTIVE and w.x[_COSINE] >= absorb_at:
            return False  # an absorption hides a memory: always checked
        return max(w.p) >= self.cascade.gate

    def compare(self, A, B, sim: float) -> Verdict:
        return self._decided([self.weigh(A, B, sim)])[0]

    def judge_many(self, pairs: Sequence[tuple[str, str, float]], *, absorb_at: float = 0.0) -> list[Verdict]:
        """Verdicts for (a, b, cosine) triples, the encoder reading every open pair in one go.
        An agreement below `absorb_at` is checked only when the first look is unsure."""
        out: list[Verdict | None] = [None] * len(pairs)
        looks, at = [], []
        for i, (a, b, sim) in enumerate(pairs):
            sim = float(sim)
            if not sim >= self.floor:
                out[i] = floor_verdict(sim, self.floor)
                continue
            looks.append(self.weigh(self.analyse(a), self.analyse(b), sim))
            at.append(i)
        for i, verdict in zip(at, self._decided(looks, absorb_at)):
            out[i] = verdict
        return out  # type: ignore[return-value]

    def _decided(self, looks: list[Weighed], absorb_at: float = 0.0) -> list[Verdict]:
        reads = [not self.settled(w, absorb_at) for w in looks]
        open_ = [(w.A.text, w.B.text) for w, read in zip(looks, reads) if read]
        readings = iter(self.encoder.read(open_) if open_ else ())
        self.opened += len(open_)
        return [self.second_look(w, next(readings)) if read else self.verdict(w) for w, read in zip(looks, reads)]

    def second_look(self, w: Weighed, reading: np.ndarray) -> Verdict:
        p = self.cascade.probabilities(cascade_features(w.p, w.x, reading))
        if readers_agree(w.x) and w.k != _DESTRUCTIVE:
            p[_DESTRUCTIVE] = 0.0
        # the dispute gate reads the readers' evidence only: the encoder's own reading of a
        # contradiction opens it, and its confident neutral closes it
        allow = self.gates.allow(w.x)
        allow["may_dispute"] = (allow["may_dispute"] or encoder_disagrees(reading)) and not encoder_reads_neutral(reading)
        k = decide(p, w.x, self.cascade.constructive_min, disagreement=encoder_disagrees(reading) or None,
                   apart=texts_apart(w.A, w.B, w.x), **allow)
        if k == w.k:
            return self.verdict(w)
        return self.verdict(w._replace(p=p, k=k), read_together=True)
