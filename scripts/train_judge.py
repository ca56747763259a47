#!/usr/bin/env python
"""Train the learned judge's combiner from the dev sets; report cross-validated accuracy.

Usage: scripts/train_judge.py [--out FILE] [--cv-only | --no-cv] [--gates-out FILE | --no-gates]

Reads the dev sets: tests/data/judge_dev.jsonl (hand-written; its topic
is the first subject word of a pair's first text), judge_dev_gen.jsonl
(templated) and judge_dev_written_a/b.jsonl (hand-written by two other
hands, in other styles); the last three give a `topic` per pair. Both texts are embedded with the default
embedder (cosines rounded to 4 decimals, so the file does not depend on the
last bits of the floats), the features of `collective.judge.features` are
computed, and a multinomial logistic regression (scikit-learn, the `test`
extra) is fitted. Its standardisation, coefficients and the constructive
threshold are written, rounded to 6 decimals, to
collective/judge/judge_data/combiner.json: the same data rebuild the same
bytes (tests/unit/judge/test_learned.py checks it).

Cross-validation holds whole topics out (5 folds grouped by topic): printed
are four-way accuracy (overall and per dev file) and how often each relation
is wrongly called constructive. A second measure holds out each written set
whole and trains on the rest ("leave one writer out"): how the judge does on
a hand it has never read. A third ("unrelated") is what the judge with the combiner
written calls pairs no dev file holds but a pull meets: each text of a written set with its
nearest text of another topic (all should be independent). The holdout and blind sets are
never read here.

The gates (judge_data/gates.json): the dev sets hold pairs chosen because they relate, and a
real pull meets mostly another fact about the same subject, which they barely hold. So two
binary models over the same features learn, from the dev sets and from real text nobody here
wrote, whether a pair may be a contradiction ("dispute gate") and whether it may be the same
statement ("absorb gate"). Real pairs are what a pull meets: each text of one agent with its
nearest texts of the other (scripts/merge_corpora.py, the "train" part of each corpus, which
the merge-quality benchmark never measures on):
- HotpotQA's Wikipedia sentences, split within their paragraphs: no contradiction, no paraphrase;
- LongMemEval's chat turns, split within their sessions: no contradiction;
- SNLI (train part): a premise and its neutral hypothesis (another fact of one scene: neither),
  its entailed one (no contradiction), and its contradicting one where it denies or changes the
  same predicate (a contradiction; the others of one photo only are left out);
- our chats (tests/data/merge_chats_dev.jsonl): the labelled pairs, and every other pair a
  pull meets there (no contradiction).
The corpora are downloaded on first use (merge_corpora) and cached.
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
# The gates: the real pairs weigh this many times the dev sets in all (a false dispute on real
# text costs a person's attention and a peer's trust), and a gate opens at this probability.
REAL_WEIGHT = 3.0
GATE_C = 1.0
DISPUTE_GATE_MIN = 0.5
ABSORB_GATE_MIN = 0.2
GATES_OUT = ROOT / "collective" / "judge" / "judge_data" / "gates.json"
REAL_PER_CORPUS = 5000  # pairs per public corpus (a sample, seeded)


# dev file -> weight of its pairs; the written sets are held out whole by `leave_one_writer_out`
DEV_FILES = {"judge_dev.jsonl": HAND_WEIGHT, "judge_dev_gen.jsonl": 1.0,
             "judge_dev_written_a.jsonl": HAND_WEIGHT, "judge_dev_written_b.jsonl": HAND_WEIGHT}
WRITTEN = ("judge_dev_written_a.jsonl", "judge_dev_written_b.jsonl")


def load() -> list[dict]:
    rows = []
    judge = RuleJudge()
    for name, weight in DEV_FILES.items():
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            row = dict(json.loads(line), source=name, weight=weight)
            if "topic" not in row:  # the first hand-written set: its first subject word
                a = judge.analyse(row["a"])
                row["topic"] = "hand:" + sorted(a.subject or a.content or {"misc"})[0]
            row["topic"] = f"{name}:{row['topic']}"  # one name in two files is two topics
            rows.append(row)
    return rows


def unrelated(rows: list[dict]) -> list[dict]:
    """Pairs a pull meets that no dev file holds: each text of a written dev set with its
    nearest text of another topic of the same file, where their cosine reaches the candidate
    floor (a pull judges them). They should all be independent. (The other files' topics are
    too coarse: two of their topics can be one subject.) Not trained on: weighted in, they
    cost the written sets more accuracy than they saved here."""
    from collective.embedders import default_embedder

    embedder = default_embedder()
    floor = RuleJudge().floor
    out = []
    for name in WRITTEN:
        texts = {}
        for r in rows:
            if r["source"] == name:
                texts.setdefault(r["a"], r)
                texts.setdefault(r["b"], r)
        order = list(texts)
        vectors = embedder.embed(order)
        sims = np.round(vectors @ vectors.T, 4)
        topics = np.array([texts[t]["topic"] for t in order])
        seen = set()
        for i, text in enumerate(order):
            others = np.where(topics != topics[i], sims[i], -1.0)
            j = int(others.argmax())
            if others[j] >= floor and frozenset((i, j)) not in seen:
                seen.add(frozenset((i, j)))
                out.append({"a": text, "b": order[j], "sim": float(others[j]), "topic": topics[i], "source": name})
    return out


def featurise(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    from collective.embedders import default_embedder

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


def decide_all(spec: dict, X: np.ndarray, gates: dict | None = None) -> np.ndarray:
    from collective.judge.learned import Combiner, Gates, decide

    comb, gate = Combiner(spec), Gates(gates) if gates else None
    return np.array([decide(comb.probabilities(list(x)), list(x), comb.constructive_min,
                            **(gate.allow(list(x)) if gate else {})) for x in X])


def gated_cv(X, y, w, groups, Xr, real) -> dict:
    """The grouped cross-validation with the gates in: dev topics held out as above (the real
    pairs are all trained on in each fold: they share no text with the dev sets)."""
    from sklearn.model_selection import GroupKFold

    pred = np.empty_like(y)
    for train, test in GroupKFold(n_splits=FOLDS).split(X, y, groups):
        gates = fit_gates(X[train], y[train], w[train], Xr, real)
        pred[test] = decide_all(fit(X[train], y[train], w[train]), X[test], gates)
    return measure(y, pred)


def measure(y: np.ndarray, pred: np.ndarray) -> dict:
    """Four-way accuracy, contradiction recall and precision, and how often each other
    relation is wrongly called constructive (absorbed)."""
    c, d = RELATIONS.index("constructive"), RELATIONS.index("destructive")
    wrongly = {r: round(float(((y == k) & (pred == c)).sum() / max(1, (y == k).sum())), 4)
               for k, r in enumerate(RELATIONS) if k != c}
    hit = float(((pred == d) & (y == d)).sum())
    return {"accuracy": round(float((pred == y).mean()), 4), "pairs": int(len(y)),
            "contradiction_recall": round(hit / max(1, (y == d).sum()), 4),
            "contradiction_precision": round(hit / max(1, (pred == d).sum()), 4),
            "wrongly_constructive": wrongly}


def cross_validate(X, y, w, groups, sources) -> dict:
    from sklearn.model_selection import GroupKFold

    pred = np.empty_like(y)
    for train, test in GroupKFold(n_splits=FOLDS).split(X, y, groups):
        pred[test] = decide_all(fit(X[train], y[train], w[train]), X[test])
    return {"cv": {**measure(y, pred), "folds": FOLDS, "topics": int(len(set(groups))),
                   "per_file": {name: measure(y[sources == name], pred[sources == name]) for name in DEV_FILES}}}


def on_unrelated(rows: list[dict], spec: dict, gates: dict | None) -> dict:
    """What a judge with this combiner calls the `unrelated` pairs: the share of each relation
    (all of them should be independent; a contradiction there opens a needless dispute)."""
    from collective.judge import LearnedJudge
    from collective.judge.learned import Combiner, Gates

    judge = LearnedJudge(combiner=Combiner(spec), gates=Gates(gates) if gates else None)
    said = [str(judge.judge(p["a"], p["b"], p["sim"]).relation) for p in unrelated(rows)]
    return {"pairs": len(said), **{r: round(said.count(r) / max(1, len(said)), 4) for r in RELATIONS}}


def leave_one_writer_out(X, y, w, sources) -> dict:
    """Each written set scored by a combiner trained on every other dev file, next to the rules."""
    rule = X[:, [FEATURES.index(f"rule_{r}") for r in RELATIONS]].argmax(axis=1)
    out = {}
    for name in WRITTEN:
        held = sources == name
        judged = decide_all(fit(X[~held], y[~held], w[~held]), X[held])
        out[name] = {"learned": measure(y[held], judged), "rules": measure(y[held], rule[held])}
    return {"leave_one_writer_out": out}


def pull_pairs(a: list[str], b: list[str], k: int = 8) -> list[tuple[str, str, float]]:
    """What a pull of b into a judges: each b text with its k nearest a texts above the floor."""
    from collective.embedders import default_embedder

    if not a or not b:
        return []
    embedder = default_embedder()
    sims = np.round(embedder.embed(b) @ embedder.embed(a).T, 4).astype(np.float64)
    floor = RuleJudge().floor
    out = []
    for j, row in enumerate(sims):
        for i in np.argsort(-row, kind="stable")[:k]:
            if row[i] >= floor and a[i] != b[j]:
                out.append((a[i], b[j], float(row[i])))
    return out


def real_pairs(cache: Path | None = None) -> list[dict]:
    """The real pairs the gates learn from, each {"a", "b", "sim", "dispute", "absorb"}: 1 or 0
    for what the pair is, None where the corpus cannot say (see the module's docstring)."""
    import random

    sys.path.insert(0, str(ROOT / "scripts"))
    from merge_corpora import default_cache, load_corpus

    cache = cache or default_cache()
    rng = random.Random(11)
    out = []

    def sample(pairs):
        return rng.sample(pairs, min(len(pairs), REAL_PER_CORPUS))

    for name in ("hotpot", "longmemeval"):
        data = load_corpus(name, cache, None, 11, part="train")
        # a chat may repeat itself (a copied line): no claim that its turns never agree
        absorb = 0 if name == "hotpot" else None
        out += [{"a": x, "b": y, "sim": s, "dispute": 0, "absorb": absorb} for x, y, s in sample(pull_pairs(data["a"], data["b"]))]
    snli = load_corpus("snli", cache, 4000, 11, part="train")
    said = {"contradiction": (1, 0), "new": (0, 0), "agreement": (0, None)}  # "scene": left out
    out += [{"a": p["a"], "b": p["b"], "sim": None, "dispute": said[p["label"]][0], "absorb": said[p["label"]][1]}
            for p in snli["truth"]["pairs"] if p["label"] in said]
    chats = load_corpus("chats", cache, None, 11, part="dev")
    labelled = {(p["a"], p["b"]): p["label"] for p in chats["truth"]["pairs"]}
    for x, y, s in pull_pairs(chats["a"], chats["b"]):
        label = labelled.pop((x, y), "new")
        out.append({"a": x, "b": y, "sim": s, "dispute": int(label == "contradiction"),
                    "absorb": None if label == "agreement" else 0})
    out += [{"a": x, "b": y, "sim": None, "dispute": int(label == "contradiction"), "absorb": int(label == "agreement")}
            for (x, y), label in labelled.items()]
    return out


def featurise_real(pairs: list[dict]) -> np.ndarray:
    from collective.embedders import default_embedder

    missing = [p for p in pairs if p["sim"] is None]
    if missing:
        embedder = default_embedder()
        va, vb = embedder.embed([p["a"] for p in missing]), embedder.embed([p["b"] for p in missing])
        for p, s in zip(missing, np.round((va * vb).sum(axis=1).astype(np.float64), 4)):
            p["sim"] = float(s)
    judge = RuleJudge()
    return np.array([judge_features(judge.analyse(p["a"]), judge.analyse(p["b"]), p["sim"], judge.floor)[1]
                     for p in pairs], dtype=np.float64)


def fit_gate(X: np.ndarray, y: np.ndarray, w: np.ndarray, Xr: np.ndarray, yr: np.ndarray, minimum: float) -> dict:
    """A binary logistic regression over the dev rows and the real rows (weighted to
    REAL_WEIGHT times the dev rows' total), as {mean, scale, coef, intercept, min}."""
    from sklearn.linear_model import LogisticRegression

    keep = ~np.isnan(yr)
    Xa = np.vstack([X, Xr[keep]])
    ya = np.concatenate([y, yr[keep]]).astype(int)
    wa = np.concatenate([w, np.full(int(keep.sum()), REAL_WEIGHT * w.sum() / max(1, int(keep.sum())))])
    mean = np.round(Xa.mean(axis=0), 6)
    scale = np.round(Xa.std(axis=0), 6)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=GATE_C, max_iter=5000, tol=1e-8).fit((Xa - mean) / scale, ya, sample_weight=wa)
    return {"mean": mean.tolist(), "scale": scale.tolist(), "coef": np.round(model.coef_[0], 6).tolist(),
            "intercept": round(float(model.intercept_[0]), 6), "min": minimum}


def fit_gates(X, y, w, Xr, real) -> dict:
    d, c = RELATIONS.index("destructive"), RELATIONS.index("constructive")
    as_float = lambda key: np.array([np.nan if p[key] is None else p[key] for p in real], dtype=np.float64)
    return {"features": list(FEATURES),
            "dispute": fit_gate(X, (y == d).astype(float), w, Xr, as_float("dispute"), DISPUTE_GATE_MIN),
            "absorb": fit_gate(X, (y == c).astype(float), w, Xr, as_float("absorb"), ABSORB_GATE_MIN)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train the learned judge's combiner on the dev sets.")
    ap.add_argument("--out", default=str(OUT), help="combiner file to write")
    ap.add_argument("--cv-only", action="store_true", help="report cross-validation, write nothing")
    ap.add_argument("--no-cv", action="store_true", help="skip cross-validation")
    ap.add_argument("--gates-out", default=str(GATES_OUT), help="gates file to write")
    ap.add_argument("--no-gates", action="store_true", help="leave the gates (which need the real corpora) alone")
    args = ap.parse_args(argv)
    rows = load()
    X, _ = featurise(rows)
    y = np.array([RELATIONS.index(r["label"]) for r in rows])
    w = np.array([r["weight"] for r in rows])
    sources = np.array([r["source"] for r in rows])
    report = {} if args.no_cv else {**cross_validate(X, y, w, np.array([r["topic"] for r in rows]), sources),
                                    **leave_one_writer_out(X, y, w, sources)}
    spec = fit(X, y, w)
    gates = None
    if not args.no_gates:
        real = real_pairs()
        Xr = featurise_real(real)
        report["real_pairs"] = {"pairs": len(real), "contradictions": sum(p["dispute"] == 1 for p in real)}
        if not args.no_cv:
            report["gated"] = gated_cv(X, y, w, np.array([r["topic"] for r in rows]), Xr, real)
        gates = fit_gates(X, y, w, Xr, real)
    if not args.no_cv:
        report["unrelated"] = on_unrelated(rows, spec, gates)
    if not args.cv_only:
        Path(args.out).write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
        report["written"] = args.out
        if gates is not None:
            Path(args.gates_out).write_text(json.dumps(gates, indent=1) + "\n", encoding="utf-8")
            report["gates_written"] = args.gates_out
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
