#!/usr/bin/env python
"""Train the learned judge's combiner from the dev sets; report cross-validated accuracy.

Usage: scripts/train_judge.py [--out FILE] [--cv-only] [--json]

Reads tests/data/judge_dev.jsonl (hand-written; its topic is the first
subject word of a pair's first text) and tests/data/judge_dev_gen.jsonl
(templated; a `topic` per pair). Both texts are embedded with the default
embedder (cosines rounded to 4 decimals, so the file does not depend on the
last bits of the floats), the features of `collective.judge.features` are
computed, and a multinomial logistic regression (scikit-learn, the `test`
extra) is fitted. Its standardisation, coefficients and the constructive
threshold are written, rounded to 6 decimals, to
collective/judge/judge_data/combiner.json: the same data rebuild the same
bytes (tests/unit/judge/test_learned.py checks it).

Cross-validation holds whole topics out (5 folds grouped by topic): printed
are four-way accuracy and how often each relation is wrongly called
constructive. The holdout and blind sets are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from collective.judge import RELATIONS, RuleJudge
from collective.judge.features import FEATURES, judge_features

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
OUT = ROOT / "collective" / "judge" / "judge_data" / "combiner.json"
HAND_WEIGHT = 2.0  # a hand-written pair counts twice a templated one
C = 4.0  # inverse regularisation strength (chosen by the grouped cross-validation)
CONSTRUCTIVE_MIN = 0.55  # below this probability, constructive is not said
FOLDS = 5


def load() -> list[dict]:
    rows = []
    judge = RuleJudge()
    for line in (DATA / "judge_dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        a = judge.analyse(row["a"])
        first = sorted(a.subject or a.content or {"misc"})[0]
        rows.append(dict(row, topic=f"hand:{first}", weight=HAND_WEIGHT))
    for line in (DATA / "judge_dev_gen.jsonl").read_text(encoding="utf-8").splitlines():
        rows.append(dict(json.loads(line), weight=1.0))
    return rows


def featurise(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    from collective.embed import default_embedder

    embedder = default_embedder()
    va = embedder.embed([r["a"] for r in rows])
    vb = embedder.embed([r["b"] for r in rows])
    sims = np.round((va * vb).sum(axis=1).astype(np.float64), 4)
    judge = RuleJudge()
    X = []
    for r, sim in zip(rows, sims):
        A, B = judge.analyse(r["a"]), judge.analyse(r["b"])
        X.append(judge_features(A, B, float(sim), judge.floor)[1])
    return np.array(X, dtype=np.float64), sims


def fit(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict:
    from sklearn.linear_model import LogisticRegression

    mean = np.round(X.mean(axis=0), 6)
    scale = np.round(X.std(axis=0), 6)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=C, max_iter=5000, tol=1e-8)
    model.fit((X - mean) / scale, y, sample_weight=w)
    assert list(model.classes_) == list(range(len(RELATIONS)))
    return {
        "features": list(FEATURES), "classes": list(RELATIONS), "constructive_min": CONSTRUCTIVE_MIN,
        "mean": mean.tolist(), "scale": scale.tolist(),
        "coef": np.round(model.coef_, 6).tolist(), "intercept": np.round(model.intercept_, 6).tolist(),
    }


def decide_all(spec: dict, X: np.ndarray) -> np.ndarray:
    from collective.judge.learned import Combiner, decide

    comb = Combiner(spec)
    return np.array([decide(comb.probabilities(list(x)), list(x), comb.constructive_min) for x in X])


def cross_validate(X, y, w, groups) -> dict:
    from sklearn.model_selection import GroupKFold

    pred = np.empty_like(y)
    for train, test in GroupKFold(n_splits=FOLDS).split(X, y, groups):
        pred[test] = decide_all(fit(X[train], y[train], w[train]), X[test])
    c = RELATIONS.index("constructive")
    wrongly = {r: round(float(((y == k) & (pred == c)).sum() / max(1, (y == k).sum())), 4)
               for k, r in enumerate(RELATIONS) if k != c}
    return {"cv_accuracy": round(float((pred == y).mean()), 4), "folds": FOLDS, "pairs": int(len(y)),
            "topics": int(len(set(groups))), "wrongly_constructive": wrongly}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train the learned judge's combiner on the dev sets.")
    ap.add_argument("--out", default=str(OUT), help="combiner file to write")
    ap.add_argument("--cv-only", action="store_true", help="report cross-validation, write nothing")
    ap.add_argument("--no-cv", action="store_true", help="skip cross-validation")
    args = ap.parse_args(argv)
    rows = load()
    X, _ = featurise(rows)
    y = np.array([RELATIONS.index(r["label"]) for r in rows])
    w = np.array([r["weight"] for r in rows])
    report = {} if args.no_cv else cross_validate(X, y, w, np.array([r["topic"] for r in rows]))
    if not args.cv_only:
        spec = fit(X, y, w)
        Path(args.out).write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
        report["written"] = args.out
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
