#!/usr/bin/env python
"""Fit the cascade's second model (judge_data/cascade.json) and choose its gate.

Usage: scripts/train_cascade.py [--cv-only] [--gate G]

The second model weighs the learned judge's four probabilities, the
cross-encoder's reading (collective.judge.cross_encoder.READING) and a few of
the first look's features (collective.judge.cascade.CASCADE_FEATURES). It is
fitted on judge_dev_written_b.jsonl only: the one dev set the cross-encoder
never trained on (scripts/train_cross_encoder.py), scored there by a learned
combiner trained without it (as scripts/train_judge.py's "leave one writer
out"), so both inputs look as they will on text neither has seen.

Cross-validation (5 folds grouped by topic) is printed for each gate: the
four-way accuracy, contradiction recall and precision, how often a relation
is wrongly called constructive, and the share of pairs the encoder read. The
gate written is the one given, else the most accurate (ties: the fewer pairs
read). The holdout and blind sets are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from train_judge import fit as fit_first, featurise, load, measure  # noqa: E402

from collective.judge import RELATIONS, LearnedJudge  # noqa: E402
from collective.judge.cascade import CASCADE_FEATURES, Cascade, CascadeJudge, cascade_features  # noqa: E402
from collective.judge.cross_encoder import CrossEncoder, model_path  # noqa: E402
from collective.judge.learned import Combiner  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "collective" / "judge" / "judge_data" / "cascade.json"
HELD = "judge_dev_written_b.jsonl"
GATES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.01)
C = 1.0
CONSTRUCTIVE_MIN = 0.55
FOLDS = 5


def first_looks():
    """The written_b pairs as a learned judge trained without them weighs them."""
    rows = load()
    X, sims = featurise(rows)
    y = np.array([RELATIONS.index(r["label"]) for r in rows])
    w = np.array([r["weight"] for r in rows])
    held = np.array([r["source"] == HELD for r in rows])
    judge = LearnedJudge(combiner=Combiner(fit_first(X[~held], y[~held], w[~held])))
    picked = [r for r, h in zip(rows, held) if h]
    looks = [judge.weigh(judge.analyse(r["a"]), judge.analyse(r["b"]), float(s))
             for r, s, h in zip(rows, sims, held) if h]
    return picked, looks, y[held]


def fit(Z: np.ndarray, y: np.ndarray, gate: float) -> dict:
    from sklearn.linear_model import LogisticRegression

    mean, scale = np.round(Z.mean(axis=0), 6), np.round(Z.std(axis=0), 6)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=C, max_iter=5000, tol=1e-8).fit((Z - mean) / scale, y)
    return {"features": list(CASCADE_FEATURES), "classes": list(RELATIONS), "constructive_min": CONSTRUCTIVE_MIN,
            "gate": gate, "mean": mean.tolist(), "scale": scale.tolist(),
            "coef": np.round(model.coef_, 6).tolist(), "intercept": np.round(model.intercept_, 6).tolist()}


def run(encoder, spec, looks, readings) -> tuple[np.ndarray, float]:
    """The cascade's relation for each pair, and the share the encoder read."""
    judge = CascadeJudge(encoder=encoder, cascade=Cascade(spec))
    pred, opened = [], 0
    for w, reading in zip(looks, readings):
        if judge.settled(w):
            pred.append(w.k)
        else:
            opened += 1
            pred.append(RELATIONS.index(judge.second_look(w, reading).relation))
    return np.array(pred), opened / max(1, len(looks))


def main(argv=None) -> int:
    from sklearn.model_selection import GroupKFold

    ap = argparse.ArgumentParser(description="Fit the cascade's second model on the written_b dev set.")
    ap.add_argument("--cv-only", action="store_true", help="report cross-validation, write nothing")
    ap.add_argument("--gate", type=float, help="write this gate instead of the most accurate")
    ap.add_argument("--model", type=Path, default=model_path(), help="the cross-encoder's ONNX file")
    args = ap.parse_args(argv)
    encoder = CrossEncoder(args.model)
    rows, looks, y = first_looks()
    readings = encoder.read([(r["a"], r["b"]) for r in rows])
    Z = np.array([cascade_features(w.p or [0.25] * 4, w.x, rd) for w, rd in zip(looks, readings)])
    groups = np.array([r["topic"] for r in rows])
    first = np.array([w.k for w in looks])
    report = {"pairs": len(rows), "first_look": measure(y, first), "gates": {}}
    for gate in GATES:
        pred, opened = np.empty_like(y), []
        for train, test in GroupKFold(n_splits=FOLDS).split(Z, y, groups):
            pred[test], share = run(encoder, fit(Z[train], y[train], gate), [looks[i] for i in test], readings[test])
            opened.append(share * len(test))
        report["gates"][str(gate)] = {**measure(y, pred), "read_by_encoder": round(sum(opened) / len(y), 3)}
    best = args.gate or max(GATES, key=lambda g: (report["gates"][str(g)]["accuracy"], -report["gates"][str(g)]["read_by_encoder"]))
    if not args.cv_only:
        OUT.write_text(json.dumps(fit(Z, y, best), indent=1) + "\n", encoding="utf-8")
        report["written"] = {"file": str(OUT.relative_to(ROOT)), "gate": best}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
