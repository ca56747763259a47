#!/usr/bin/env python3
"""Merge quality on real text: what a pull makes of memories nobody wrote for the judge.

Each corpus (scripts/merge_corpora.py) is split between two agents, a and b, that share
one commons (a doltlite file); b pushes, a pulls b with the default judge. A third agent
stores every memory of the corpus itself: the baseline, in the same run, with the same
vectors (each text is embedded once, by the default embedder, and stored with its vector).

Per corpus:
- disputes_per_1000: destructive pairs per 1,000 memories pulled (each opens or raises a case;
  disputed_memories_per_1000: pulled memories in at least one); where the truth is known
  (chats, snli: every pair not labelled a contradiction is not one) false_disputes_per_1000,
  dispute precision and recall (over the labelled contradictions), and what the judge made of
  each kind of labelled pair (label -> relation counts; "not_judged": never a candidate pair).
- hidden_per_1000: pulled memories that a recall of their own words (their own vector) on the
  merged agent does not return in its first 3. A memory absorbed into another counts as found
  when the one that absorbed it is returned: absorbing is by design. The baseline agent's own
  figure (the same recall of the same words) is beside it.
- recall: hit@5 of the merged agent and of the baseline on the corpus's questions (their
  answers are pulled memories); a hit on a memory that absorbed an answer counts
  (merged_own_text_only: only the answers' own memories count).
- trust: a's trust in b after this first pull; pairs: candidate pairs judged, and per second
  of the pull's classify stage; relations: pair counts (constructive, destructive, partial,
  independent), and the pull's per-memory summary.

Corpora (--corpus, repeatable; default all): chats (ours, tests/data: --set dev|blind),
hotpot, snli, longmemeval, pyfaq. The public ones are downloaded on first use into
${CMEM_TOOLS_CACHE:-~/.cache/collective-memory} (--cache) and kept; see merge_corpora.py for
their licences. Output: one JSON line, the corpora inside; --table also prints a table to stderr.

    python scripts/bench_merge_quality.py                       # every corpus, ~600 memories each
    python scripts/bench_merge_quality.py --corpus snli --table
    python scripts/bench_merge_quality.py --corpus chats --set blind   # the blind chats: scored once
    python scripts/bench_merge_quality.py --quick               # the dev chats, 120 memories: seconds
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)

from collective.agent import Agent, MemoryInput

from bench_recall_quality import embed_sorted
from benchkit import parse_args, work_folder
from merge_corpora import CORPORA, default_cache, load_corpus

QUICK = {"corpus": ["chats"], "limit": 120}
HIT_K, HIDDEN_K = 5, 3
RELATIONS = ("constructive", "destructive", "partial", "independent")


def per_1000(n: int, of: int) -> float | None:
    return round(1000 * n / of, 1) if of else None


def share(n: int, of: int) -> float | None:
    return round(n / of, 4) if of else None


class Split:
    """The three agents of one corpus: a and b on one commons, and the baseline holding all."""

    def __init__(self, data: dict, root: Path):
        self.data = data
        self.a = Agent.init("merge-a", home=root / "a")
        embedder = self.a.embedder  # one model in memory for the three agents
        self.b = Agent.init("merge-b", home=root / "b", embedder=embedder)
        self.base = Agent.init("merge-all", home=root / "all", embedder=embedder)
        texts = data["a"] + data["b"]
        started = time.perf_counter()
        self.vector = dict(zip(texts, embed_sorted(embedder, texts)))
        self.embed_s = time.perf_counter() - started
        url = f"file://{root / 'commons.db'}"
        self.a.add_remote("origin", url)
        self.b.add_remote("origin", url)
        self.a_ids = self.stored(self.a, data["a"])
        self.b_ids = self.stored(self.b, data["b"])
        self.base_ids = self.stored(self.base, texts)
        self.b.push()

    def stored(self, agent: Agent, texts: list[str]) -> dict[str, str]:
        """Memory id -> text."""
        results = agent.store_many([MemoryInput(t, vector=self.vector[t]) for t in texts])
        ids = {r.memory.id: t for r, t in zip(results, texts)}
        assert len(ids) == len(texts), "the store merged memories: a corpus's texts must differ"
        return ids

    def close(self) -> None:
        for agent in (self.a, self.b, self.base):
            agent.close()


def judged(pairs: list[dict], text: dict[str, str], truth: list[dict]) -> dict:
    """Disputes against the labelled pairs: precision, recall, and each label's relations."""
    relation = {(text[p["local"]], text[p["remote"]]): p["relation"] for p in pairs}
    disputed = {k for k, r in relation.items() if r == "destructive"}
    contradictions = {(p["a"], p["b"]) for p in truth if p["label"] == "contradiction"}
    found = disputed & contradictions
    by_label: dict[str, Counter] = {}
    for p in truth:
        by_label.setdefault(p["label"], Counter())[relation.get((p["a"], p["b"]), "not_judged")] += 1
    return {"true_disputes": len(found), "false_disputes": len(disputed - contradictions),
            "contradictions_planted": len(contradictions),
            "dispute_precision": share(len(found), len(disputed)),
            "dispute_recall": share(len(found), len(contradictions)),
            "labelled": {label: dict(c) for label, c in sorted(by_label.items())}}


def absorbed(agent: Agent, ids: list[str]) -> dict[str, str]:
    """Pulled memory id -> the memory that absorbed it, for those absorbed."""
    out = {}
    for mid in ids:
        into = agent.get(mid).absorbed_into
        if into:
            out[mid] = into
    return out


def hidden(agent: Agent, ids: dict[str, str], vector: dict, into: dict[str, str]) -> set[str]:
    """Texts a recall of their own words does not return in the first HIDDEN_K (nor the
    memory that absorbed them)."""
    missed = set()
    for mid, text in ids.items():
        returned = {h.memory.id for h in agent.recall(text, k=HIDDEN_K, vector=vector[text])}
        if not {mid, into.get(mid)} & returned:
            missed.add(text)
    return missed


def by_label(texts, labels: dict[str, str]) -> dict[str, int]:
    return dict(sorted(Counter(labels[t] for t in texts if t in labels).items()))


def hit_rates(agent: Agent, questions: list[dict], text: dict[str, str],
              stands_for: dict[str, set[str]]) -> tuple[float | None, float | None]:
    """hit@HIT_K twice: a question is answered when a returned memory is one of its answers, or
    (the first figure) stands for one, having absorbed it."""
    if not questions:
        return None, None
    hits = strict = 0
    for q in questions:
        returned = [h.memory.id for h in agent.recall(q["q"], k=HIT_K, vector=q["vector"])]
        answers = set(q["answers"])
        strict += any(text.get(mid) in answers for mid in returned)
        hits += any(({text.get(mid)} | stands_for.get(mid, set())) & answers for mid in returned)
    return round(hits / len(questions), 4), round(strict / len(questions), 4)


def trust(agent: Agent, peer: str) -> float | None:
    score = agent.trust_scores().get(peer)
    return None if score is None else round(score, 4)


def run_corpus(data: dict, root: Path) -> dict:
    started = time.perf_counter()
    split = Split(data, root)
    try:
        setup_s = time.perf_counter() - started
        clock = time.perf_counter()
        (peer,) = split.a.pull("origin")["peers"]
        pull_s = time.perf_counter() - clock
        pairs, summary, seconds = peer["pairs"], peer["summary"], peer["seconds"]
        pulled = summary["new"]
        text = {**split.a_ids, **split.b_ids}
        relations = Counter(p["relation"] for p in pairs)
        disputes = relations["destructive"]

        into = absorbed(split.a, list(split.b_ids))
        stands_for: dict[str, set[str]] = {}
        for mid, target in into.items():
            stands_for.setdefault(target, set()).add(text[mid])
        base_text = split.base_ids
        questions = [{**q, "vector": split.a.embedder.embed([q["q"]])[0]} for q in data["questions"]]
        clock = time.perf_counter()
        hidden_merged = hidden(split.a, split.b_ids, split.vector, into)
        base_b = {mid: t for mid, t in base_text.items() if t in split.b_ids.values()}
        hidden_base = hidden(split.base, base_b, split.vector, {})
        merged, merged_strict = hit_rates(split.a, questions, text, stands_for)
        recall = {"k": HIT_K, "questions": len(questions), "merged": merged, "merged_own_text_only": merged_strict,
                  "baseline": hit_rates(split.base, questions, base_text, {})[1]}
        recall_s = time.perf_counter() - clock

        out = {"corpus": data["name"], "license": data["license"], "source": data["source"],
               "memories": {"a": len(data["a"]), "b": len(data["b"]), "pulled": pulled},
               "disputes": disputes, "disputes_per_1000": per_1000(disputes, pulled),
               "disputed_memories_per_1000": per_1000(len({p["remote"] for p in pairs
                                                           if p["relation"] == "destructive"}), pulled),
               "cases": len(summary.get("cases", [])), "truth_known": data["truth"]["known"]}
        if data["truth"]["known"]:
            truth = judged(pairs, text, data["truth"]["pairs"])
            out["false_disputes_per_1000"] = per_1000(truth["false_disputes"], pulled)
            out.update(truth)
        labels = data["truth"]["labels"]
        if labels:  # b's memories by label: how many of each, absorbed, hidden ("new fact hidden")
            out["pulled_by_label"] = by_label(split.b_ids.values(), labels)
            out["absorbed_by_label"] = by_label([text[m] for m in into], labels)
            out["hidden_by_label"] = by_label(hidden_merged, labels)
        out.update({
            "absorbed": len(into), "hidden": len(hidden_merged),
            "hidden_per_1000": per_1000(len(hidden_merged), pulled),
            "baseline_hidden_per_1000": per_1000(len(hidden_base), len(base_b)),
            "recall": recall,
            "trust_after_pull": trust(split.a, split.b.agent_id),
            "pairs": len(pairs),
            "pairs_per_s": round(len(pairs) / seconds["classify"], 1) if seconds.get("classify") else None,
            "relations": {r: relations[r] for r in RELATIONS},
            "summary": {r: summary.get(r) for r in ("new", *RELATIONS)},
            "seconds": {"setup": round(setup_s, 1), "embed": round(split.embed_s, 1), "pull": round(pull_s, 2),
                        "classify": seconds.get("classify"), "recalls": round(recall_s, 1)},
        })
        return out
    finally:
        split.close()


def table(rows: list[dict]) -> None:
    cols = ("pulled", "disp/1k", "false/1k", "prec", "recall", "hidden/1k", "hit@5", "base@5", "trust", "pairs/s")
    print(f"{'corpus':12} " + " ".join(f"{c:>9}" for c in cols), file=sys.stderr)
    for r in rows:
        cells = (r["memories"]["pulled"], r["disputes_per_1000"], r.get("false_disputes_per_1000"),
                 r.get("dispute_precision"), r.get("dispute_recall"), r["hidden_per_1000"],
                 r["recall"]["merged"], r["recall"]["baseline"], r["trust_after_pull"], r["pairs_per_s"])
        print(f"{r['corpus']:12} " + " ".join(f"{'-' if c is None else c:>9}" for c in cells), file=sys.stderr)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", choices=CORPORA,
                        help="a corpus to score (repeatable; default: all)")
    parser.add_argument("--set", choices=("dev", "blind"), default="dev",
                        help="which of our own chats (default dev; blind is scored once, never tuned on)")
    parser.add_argument("--limit", type=int, default=600, help="memories per corpus, a and b together (default 600)")
    parser.add_argument("--seed", type=int, default=7, help="the sample and the split (default 7)")
    parser.add_argument("--cache", help="where downloaded corpora are kept (default: $CMEM_TOOLS_CACHE or "
                                        "~/.cache/collective-memory)")
    parser.add_argument("--dir", help="keep the agents and commons in DIR/merge-quality (default: a temporary "
                                      "folder, removed)")
    parser.add_argument("--json", action="store_true", default=True, help="the JSON line on stdout (the default)")
    parser.add_argument("--table", action="store_true", help="also print a table to stderr")
    args = parse_args(parser, argv, QUICK)
    cache = default_cache(args.cache)
    started, rows = time.perf_counter(), []
    with work_folder(args.dir, "merge-quality") as root:
        for name in args.corpus or CORPORA:
            options = {"part": args.set} if name == "chats" else {}
            data = load_corpus(name, cache, args.limit, args.seed, **options)
            rows.append(run_corpus(data, root / data["name"]))
    out = {"bench": "merge_quality", "measurement": "merge_quality_on_real_text", "limit": args.limit,
           "seed": args.seed, "corpora": {r["corpus"]: r for r in rows},
           "baseline": "an agent that stored every memory of the corpus itself (same run, same vectors): "
                       "recall.baseline and baseline_hidden_per_1000",
           "hidden_rule": f"a pulled memory is hidden when a recall of its own words does not return it, or the "
                          f"memory that absorbed it (absorbing is by design), among the first {HIDDEN_K}",
           "seconds": round(time.perf_counter() - started, 1), "cpus": os.cpu_count(),
           "load_1m": round(os.getloadavg()[0], 2)}
    print(json.dumps(out), flush=True)
    if args.table:
        table(rows)
    return out


if __name__ == "__main__":
    main()
