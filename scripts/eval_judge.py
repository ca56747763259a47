#!/usr/bin/env python
"""Measure the pairwise judge on a labelled JSONL file of memory pairs.

Usage: scripts/eval_judge.py FILE.jsonl [--json]

Each line is {"a": ..., "b": ..., "label": ..., "kind": ...}; "label" is one
of constructive, destructive, partial, independent; "kind" (a sub-kind) is
optional. Both texts are embedded with the default embedder, the cosine is
computed, and four judges are scored in the same run:

- judge:    the cascade, CascadeJudge (the learned judge with the cross-encoder
            on the pairs it leaves open; `[merge] cross_encoder = true`)
- learned:  collective.judge.LearnedJudge (the default judge)
- rules:    collective.judge.RuleJudge (the rule judge alone)
- baseline: "cosine >= 0.6 plus negation cues": cosine < 0.6 -> independent;
            else exactly one text has a negation cue -> destructive;
            else constructive.

Printed per judge: four-way accuracy, per-relation recall and precision, a
4x4 confusion matrix (rows = label, columns = prediction) and how often each
relation is wrongly called constructive (absorbed); then per sub-kind the
accuracy and the share called destructive (contradiction recall for the
destructive kinds, false alarms for the others); and the speed of both built-in
judges (analyse texts/s, load kept analyses/s, judge pairs/s on
already-analysed texts), and for the cascade its pairs/s as a whole (texts
analysed, one core), the cross-encoder's own pairs/s and how many pairs it
read. ``--json`` prints one JSON object instead.

Exit 2 with a one-line message for a missing or malformed file; exit 1 if
the embedder cannot be loaded.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from collective.judge import RELATIONS, LearnedJudge, RuleJudge, default_judge

BASELINE_COSINE = 0.6
_NEG_CUE = re.compile(r"\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cannot)\b|n't\b|n’t\b", re.I)


class BadFile(Exception):
    pass


def load_pairs(path: str) -> list[dict]:
    p = Path(path)
    if not p.is_file():
        raise BadFile(f"{path}: no such file")
    pairs = []
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadFile(f"{path}: cannot read: {e}") from e
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise BadFile(f"{path}:{n}: not JSON ({e.msg})") from e
        if not isinstance(row, dict):
            raise BadFile(f"{path}:{n}: expected an object")
        for field in ("a", "b", "label"):
            if not isinstance(row.get(field), str):
                raise BadFile(f"{path}:{n}: field {field!r} missing or not a string")
        if row["label"] not in RELATIONS:
            raise BadFile(f"{path}:{n}: label {row['label']!r} is not one of {', '.join(RELATIONS)}")
        kind = row.get("kind")
        if kind is not None and not isinstance(kind, str):
            raise BadFile(f"{path}:{n}: field 'kind' is not a string")
        pairs.append({"a": row["a"], "b": row["b"], "label": row["label"], "kind": kind or "(none)"})
    if not pairs:
        raise BadFile(f"{path}: no pairs")
    return pairs


def baseline(a: str, b: str, sim: float) -> str:
    if sim < BASELINE_COSINE:
        return "independent"
    if bool(_NEG_CUE.search(a)) != bool(_NEG_CUE.search(b)):
        return "destructive"
    return "constructive"


def score(labels: list[str], preds: list[str], kinds: list[str]) -> dict:
    n = len(labels)
    confusion = {t: {p: 0 for p in RELATIONS} for t in RELATIONS}
    for t, p in zip(labels, preds):
        confusion[t][p] += 1
    per_relation = {}
    for r in RELATIONS:
        tp = confusion[r][r]
        support = sum(confusion[r].values())
        predicted = sum(confusion[t][r] for t in RELATIONS)
        per_relation[r] = {
            "support": support,
            "recall": tp / support if support else None,
            "precision": tp / predicted if predicted else None,
        }
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for t, p, k in zip(labels, preds, kinds):
        key = f"{t}/{k}"
        by_kind[key][0] += t == p
        by_kind[key][1] += p == "destructive"
        by_kind[key][2] += 1
    wrongly = {t: (confusion[t]["constructive"] / sum(confusion[t].values()) if sum(confusion[t].values()) else None)
               for t in RELATIONS if t != "constructive"}
    return {
        "n": n,
        "accuracy": sum(t == p for t, p in zip(labels, preds)) / n,
        "per_relation": per_relation,
        "confusion": confusion,
        "wrongly_constructive": wrongly,
        "per_kind": {k: {"accuracy": c / m, "called_destructive": d / m, "n": m} for k, (c, d, m) in sorted(by_kind.items())},
    }


def measure_speed(pairs: list[dict], sims: list[float], judge_class=LearnedJudge) -> dict:
    texts = [p["a"] for p in pairs] + [p["b"] for p in pairs]
    unique = list(dict.fromkeys(texts))
    fresh = judge_class()
    t0 = time.process_time()
    for t in unique:
        fresh.analyse(t)
    analyse_s = time.process_time() - t0
    kept = [(t, fresh.analysis_bytes(t)) for t in unique]  # as local_analyses keeps them
    loader = judge_class()
    t0 = time.process_time()
    for t, blob in kept:
        loader.remember(t, blob)
    load_s = time.process_time() - t0
    reps = max(1, 20000 // len(pairs))
    t0 = time.process_time()  # CPU time of this process: one core, whatever else the machine runs
    for _ in range(reps):
        for p, s in zip(pairs, sims):
            fresh.judge(p["a"], p["b"], s)
    judge_s = time.process_time() - t0
    return {
        "analyse_texts_per_s": round(len(unique) / max(analyse_s, 1e-9)),
        "load_kept_analyses_per_s": round(len(unique) / max(load_s, 1e-9)),
        "judge_pairs_per_s": round(reps * len(pairs) / max(judge_s, 1e-9)),
    }


def judged(judge, pairs: list[dict], sims: list[float]) -> list:
    triples = [(p["a"], p["b"], s) for p, s in zip(pairs, sims)]
    many = getattr(judge, "judge_many", None)
    return many(triples) if many else [judge.judge(a, b, s) for a, b, s in triples]


def measure_cascade(pairs: list[dict], sims: list[float]) -> dict:
    """The cascade from fresh (texts analysed, every open pair read), and its encoder alone;
    CPU time of this process, the encoder on one thread."""
    from collective.judge.cascade import CascadeJudge

    judge = CascadeJudge()
    t0 = time.process_time()
    judged(judge, pairs, sims)
    whole = time.process_time() - t0
    t0 = time.process_time()
    judge.encoder.read([(p["a"], p["b"]) for p in pairs])
    alone = time.process_time() - t0
    return {"judge_pairs_per_s": round(len(pairs) / max(whole, 1e-9)),
            "encoder_pairs_per_s": round(len(pairs) / max(alone, 1e-9)), "encoder_read": judge.opened}


def _fmt(x) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}"


JUDGES = ("judge", "learned", "rules", "baseline")


def print_report(path: str, result: dict) -> None:
    print(f"{path}: {result['n']} pairs")
    for name in JUDGES:
        r = result[name]
        print(f"\n== {name}: accuracy {100 * r['accuracy']:.1f}%")
        print(f"{'relation':14s} {'recall':>7s} {'precision':>9s} {'n':>5s}")
        for rel in RELATIONS:
            pr = r["per_relation"][rel]
            print(f"{rel:14s} {_fmt(pr['recall']):>7s} {_fmt(pr['precision']):>9s} {pr['support']:5d}")
        print("confusion (rows = label, columns = predicted):")
        print(" " * 14 + "".join(f"{c[:6]:>8s}" for c in RELATIONS))
        for t in RELATIONS:
            print(f"{t:14s}" + "".join(f"{r['confusion'][t][p]:8d}" for p in RELATIONS))
        print("wrongly called constructive: " + ", ".join(f"{t} {_fmt(v).strip()}%" for t, v in r["wrongly_constructive"].items()))
    print("\nper sub-kind: accuracy (judge, learned, rules, baseline), called destructive (the same), n")
    for k, v in result["judge"]["per_kind"].items():
        rows = [result[name]["per_kind"][k] for name in JUDGES]
        acc = " ".join(f"{100 * x['accuracy']:5.1f}" for x in rows)
        des = " ".join(f"{100 * x['called_destructive']:5.1f}" for x in rows)
        print(f"  {k:34s} {acc}   {des}  {v['n']:4d}")
    cascade = result["speed"].get("cascade")
    if cascade:
        print(f"\nspeed (cascade): {cascade['judge_pairs_per_s']} pairs/s as a whole, the cross-encoder "
              f"{cascade['encoder_pairs_per_s']} pairs/s alone; it read {cascade['encoder_read']} of {result['n']} pairs")
    for name in ("learned", "rules"):
        sp = result["speed"][name]
        print(f"\nspeed ({name}): analyse {sp['analyse_texts_per_s']} texts/s, load {sp['load_kept_analyses_per_s']} kept analyses/s, "
              f"judge {sp['judge_pairs_per_s']} pairs/s (analysed texts, CPU time)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score the default judge, the rule judge and a cosine+negation baseline on a labelled JSONL file.")
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--errors", action="store_true", help="also list the pairs the judge gets wrong")
    args = ap.parse_args(argv)
    try:
        pairs = load_pairs(args.file)
    except BadFile as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        from collective.embedders import default_embedder

        embedder = default_embedder()
        va = embedder.embed([p["a"] for p in pairs])
        vb = embedder.embed([p["b"] for p in pairs])
    except Exception as e:  # noqa: BLE001 - any embedder failure is operational
        print(f"error: embedder unavailable: {e}", file=sys.stderr)
        return 1
    sims = [float(x) for x in (va * vb).sum(axis=1)]
    judge, learned, rules = default_judge(cascade=True), LearnedJudge(), RuleJudge()
    verdicts = judged(judge, pairs, sims)
    labels = [p["label"] for p in pairs]
    kinds = [p["kind"] for p in pairs]
    result = {
        "file": args.file,
        "n": len(pairs),
        "judge_class": type(judge).__name__,
        "judge": score(labels, [v.relation for v in verdicts], kinds),
        "learned": score(labels, [v.relation for v in judged(learned, pairs, sims)], kinds),
        "rules": score(labels, [rules.judge(p["a"], p["b"], s).relation for p, s in zip(pairs, sims)], kinds),
        "baseline": score(labels, [baseline(p["a"], p["b"], s) for p, s in zip(pairs, sims)], kinds),
        "speed": {"learned": measure_speed(pairs, sims, LearnedJudge), "rules": measure_speed(pairs, sims, RuleJudge)},
    }
    if hasattr(judge, "judge_many"):
        result["speed"]["cascade"] = measure_cascade(pairs, sims)
    if args.errors:
        result["errors"] = [
            {"a": p["a"], "b": p["b"], "label": p["label"], "kind": p["kind"], "predicted": v.relation,
             "cosine": round(s, 3), "reason": v.reason}
            for p, s, v in zip(pairs, sims, verdicts) if v.relation != p["label"]
        ]
    if args.json:
        print(json.dumps(result))
    else:
        print_report(args.file, result)
        for e in result.get("errors", []):
            print(f"\n[{e['label']}/{e['kind']} -> {e['predicted']}] cos={e['cosine']}\n  A: {e['a']}\n  B: {e['b']}\n  {e['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
