"""`RuleJudge`, the built-in judge: read each text once (cached), then compare
the two readings by the rules of `collective.judge.rules`. Pure and offline."""

from __future__ import annotations

from .. import judge as judge_package
from .analysis import Analysis, analysis_version, dump_analysis, load_analysis
from .lexicon import CANDIDATE_FLOOR
from .protocol import Verdict, floor_verdict
from .rules import Findings, decide


class RuleJudge:
    """The built-in judge: slot extraction plus comparison rules, no model, no I/O."""

    fork_safe = True  # pure, so a pull may judge with it in forked workers
    latin_only = True  # its readers read English: the merge absorbs no text in another script it did not see verbatim

    def __init__(self, *, floor: float = CANDIDATE_FLOOR, cache_size: int = 65536):
        self.floor = floor
        self._cache: dict[str, Analysis] = {}
        self._cache_size = cache_size

    @property
    def candidate_floor(self) -> float:
        """The cosine down to which callers should fetch candidate pairs."""
        return self.floor

    def analyse(self, text: str) -> Analysis:
        """The slots of one text (cached by text)."""
        a = self._cache.get(text)
        if a is None:
            # looked up on the package when needed, so replacing `collective.judge.analyse_text`
            # (to count or stub the reading) reaches every RuleJudge
            a = judge_package.analyse_text(text)
            self._cache_put(text, a)
        return a

    def _cache_put(self, text: str, a: Analysis) -> None:
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[text] = a

    @property
    def analysis_version(self) -> str:
        return analysis_version()

    def analysis_bytes(self, text: str) -> bytes:
        """The analysis of a text as bytes, for a caller to keep (see `remember`)."""
        return dump_analysis(self.analyse(text))

    def remember(self, text: str, blob: bytes) -> bool:
        """Take a kept analysis of `text` instead of analysing it again.
        False (and nothing cached) when the bytes are not an analysis of that text."""
        try:
            a = load_analysis(blob)
        except ValueError:
            return False
        if a.text != text:
            return False
        self._cache_put(text, a)
        return True

    def judge(self, a: str, b: str, similarity: float) -> Verdict:
        sim = float(similarity)
        if not sim >= self.floor:  # also catches NaN
            return floor_verdict(sim, self.floor)
        return self.compare(self.analyse(a), self.analyse(b), sim)

    def compare(self, A: Analysis, B: Analysis, sim: float) -> Verdict:
        """The verdict of the first rule that answers (the last always does)."""
        return decide(A, B, sim, Findings(A, B, self.floor))[0].verdict()
