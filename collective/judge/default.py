"""The default judge, and judging two texts with it (`cmem judge`, the merge's fallback)."""

from __future__ import annotations

from .learned import LearnedJudge
from .protocol import Judge, Verdict


def judge_texts(a: str, b: str, *, embedder=None, judge: Judge | None = None) -> Verdict:
    """Embed both texts, take their cosine and judge the pair (default: the default judge + MiniLM)."""
    return _judged(a, b, embedder, judge)[0]


def compare_texts(a: str, b: str, *, embedder=None, judge: Judge | None = None) -> dict:
    """How two memories relate, as `cmem judge` reports it: the verdict and the cosine.
    Each must be valid memory content (BadInput names "a" or "b")."""
    from ..model import validate_content

    verdict, similarity = _judged(validate_content(a, "a"), validate_content(b, "b"), embedder, judge)
    return {**verdict.to_dict(), "similarity": round(similarity, 4)}


def _judged(a: str, b: str, embedder, judge: Judge | None) -> tuple[Verdict, float]:
    if embedder is None:
        from ..embedders import default_embedder

        embedder = default_embedder()
    vecs = embedder.embed([a, b])
    sim = float((vecs[0] * vecs[1]).sum())
    return (judge or default_judge()).judge(a, b, sim), sim


_DEFAULT_JUDGE: LearnedJudge | None = None
_CASCADE: LearnedJudge | None = None


def default_judge(*, cascade: bool = False) -> LearnedJudge:
    """The process-wide judge (its analysis cache is shared): the LearnedJudge, or with
    `cascade` the CascadeJudge (the learned judge with the cross-encoder on the pairs it
    leaves open; the learned judge alone where the cross-encoder is not installed).

    The cascade is not the default: it scores higher on text by writers it never read
    (tests/data/README.md), but its cross-encoder misreads plain paraphrases the learned
    judge gets right ("The coolant pump in module B is safe to operate" / "Module B's coolant
    pump is safe to operate" becomes independent), reads two unrelated texts as one scene
    ("Gate B12 is closed" / "the pump is safe to operate" contradict), and each pair it opens
    costs ~4 ms (docs/concepts/judge.md)."""
    global _DEFAULT_JUDGE, _CASCADE
    if cascade:
        if _CASCADE is None:
            from .cascade import CascadeJudge, shipped_cascade
            from .cross_encoder import shipped

            _CASCADE = CascadeJudge() if shipped() and shipped_cascade() else default_judge()
        return _CASCADE
    if _DEFAULT_JUDGE is None:
        _DEFAULT_JUDGE = LearnedJudge()
    return _DEFAULT_JUDGE
