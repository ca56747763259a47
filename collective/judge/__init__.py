"""Pairwise judge: do two memories agree, contradict, partly agree, or not meet?

Embeddings decide "same topic" but cannot see negation, antonyms, other
numbers, other days or other people. The judge reads the two texts and says
which of four relations holds; the merge turns the verdict into a phase
difference (0, pi, pi/2) on top of the writers' stances.

The built-in judges are pure and offline. `RuleJudge` reads each text into
slots (`reader.analyse_text`, one reader per slot in `readers/`) and compares
two readings by an ordered list of rules (`rules.py`, where the rules are
explained). `LearnedJudge`, the default, turns the same evidence, a word
alignment (`align`) and the rules' verdict into features (`features`) and
weighs them with a small trained model (`learned`; scripts/train_judge.py).
`CascadeJudge` (`cascade`; `[merge] cross_encoder = true`) hands what the learned judge leaves
open, and every agreement it would absorb, to a cross-encoder trained here
(`cross_encoder`, int8 ONNX): on text by writers it never read it absorbs
less than half as many contradictions as the learned judge, but it misreads
plain paraphrases the learned judge gets right (tests/data/README.md).
Any other judge (an NLI model, an LLM callback) can replace it
through `CallbackJudge`; the merge only sees the `Judge` protocol
(`protocol.py`).

Modules: protocol (Judge, Verdict, CallbackJudge), analysis (Analysis and
keeping it as bytes), text (normalising and tokens), readers/ and reader,
rules, rule_judge (RuleJudge), align, features, learned (LearnedJudge), cross_encoder, cascade (CascadeJudge), default (the default judge,
judging two texts), lexicon (every word table and threshold),
cache (kept analyses), stance (the stance estimator).

The names below are loaded on first use, so importing `collective.judge.stance`
or `collective.judge.protocol` does not load the rule reader.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .analysis import Analysis, Quantity, analysis_version, dump_analysis, load_analysis
    from .lexicon import CANDIDATE_FLOOR
    from .protocol import RELATIONS, CallbackJudge, Judge, JudgeOutputError, Verdict
    from .reader import analyse_text
    from .learned import LearnedJudge
    from .default import compare_texts, default_judge, judge_texts
    from .rule_judge import RuleJudge

_EXPORTS = {
    "Judge": "protocol",
    "Verdict": "protocol",
    "JudgeOutputError": "protocol",
    "CallbackJudge": "protocol",
    "RELATIONS": "protocol",
    "CANDIDATE_FLOOR": "lexicon",
    "Analysis": "analysis",
    "Quantity": "analysis",
    "dump_analysis": "analysis",
    "load_analysis": "analysis",
    "analysis_version": "analysis",
    "analyse_text": "reader",
    "RuleJudge": "rule_judge",
    "LearnedJudge": "learned",
    "default_judge": "default",
    "judge_texts": "default",
    "compare_texts": "default",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
