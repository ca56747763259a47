#!/usr/bin/env python
"""Generate the judge's templated dev set: tests/data/judge_dev_gen.jsonl.

Usage: scripts/make_judge_dev.py [--out FILE] [--seed N]

Facts about objects, events, stored items, duties, patients and statuses
(tables in scripts/judge_dev_words.py) are rendered twice, with other
synonyms, word order, voice (active, passive, reported speech, log lines),
units, number words, time and day formats, names and roles, and labelled by
construction with one of the sub-kinds of tests/data/README.md. Each pair has
a `topic` (the kind of object or event it is about): the combiner's
cross-validation holds whole topics out. No generated text is a text of the
hand-written sets (dev, holdout, blind). The same seed writes the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import judge_dev_makers as R  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PLAN = {  # (label, kind) -> pairs to write
    ("constructive", "paraphrase"): 230, ("constructive", "double_negation"): 80,
    ("constructive", "unit_conversion"): 90, ("constructive", "time_format"): 80,
    ("constructive", "elaboration"): 80,
    ("destructive", "negation"): 90, ("destructive", "antonym"): 90, ("destructive", "number"): 80,
    ("destructive", "time"): 60, ("destructive", "day"): 60, ("destructive", "place"): 60,
    ("destructive", "person"): 60, ("destructive", "state_change"): 60, ("destructive", "retraction"): 70,
    ("partial", "hedge"): 90, ("partial", "other_attribute"): 90, ("partial", "qualified"): 80,
    ("independent", "unrelated"): 80, ("independent", "shared_vocabulary"): 170,
}


def other_sets() -> set[str]:
    """Texts of the hand-written sets (lower case): a generated pair must share none of them."""
    texts = set()
    for name in ("judge_dev.jsonl", "judge_holdout.jsonl", "judge_blind.jsonl"):
        path = ROOT / "tests" / "data" / name
        for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
            row = json.loads(line)
            texts |= {row["a"].lower(), row["b"].lower()}
    return texts


def generate(seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows, seen, taken = [], set(), other_sets()
    for (label, kind), count in PLAN.items():
        make = R.MAKERS[kind]
        made, tries = 0, 0
        while made < count and tries < count * 50:
            tries += 1
            out = make(rng)
            if out is None:
                continue
            a, b, topic = (t.replace("..", ".") for t in out)  # "at 8:30 a.m.."
            if rng.random() < 0.5:
                a, b = b, a
            if a == b or (a, b) in seen or (b, a) in seen or a.lower() in taken or b.lower() in taken:
                continue
            seen.add((a, b))
            rows.append({"a": a, "b": b, "label": label, "kind": kind, "topic": topic})
            made += 1
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate the templated dev set of labelled memory pairs.")
    ap.add_argument("--out", default=str(ROOT / "tests" / "data" / "judge_dev_gen.jsonl"), help="file to write")
    ap.add_argument("--seed", type=int, default=17, help="random seed")
    args = ap.parse_args(argv)
    rows = generate(args.seed)
    with open(args.out, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(json.dumps({"pairs": len(rows), "topics": len({r["topic"] for r in rows})}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
