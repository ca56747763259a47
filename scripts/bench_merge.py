"""Benchmark: an agent holding 100k memories pulls 10k new memories from a peer.

Prints one JSON line: the pull's total time and its stages (fetch, diff,
verify, classify, apply, as the pull reports them), and, as the baseline in
the same run, the classify stage with exact numpy brute force (cosine top-k
over every local memory for each new one) instead of the ANN index.

Vectors are clustered at random so that a realistic share of pairs lies above
the similarity floor; each cluster's texts say one thing about one object, and
the peer's texts agree with it, contradict it or hedge it, so the judge finds
constructive, destructive and partial pairs. The receiver's texts were
analysed when its index took them in, before the sync (setup_s.index); both
classify runs start with a judge that has nothing in memory, as in a new
process: they read those kept analyses and analyse the peer's texts they judge, judging
on every core. Then a second peer's memories are pulled the same way
("second_peer_pull"). Targets (for the first pull): total <= 10 s, classify
>= 5x faster than brute force. The pulls use the default judge, the learned
judge (`--judge cascade`: with the cross-encoder on the pairs it leaves open;
`--judge rules`: the rule judge); every judge plans the same exact candidates in the
same run, each cold ("judges_on_exact_candidates": seconds and relations, and
for the cascade how many pairs its cross-encoder read).

    python scripts/bench_merge.py                     # 100k local, 10k remote
    python scripts/bench_merge.py --n-local 20000 --n-remote 2000
    python scripts/bench_merge.py --quick             # 300 local, 50 remote: seconds
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import sys
import time

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import numpy as np

from collective import merge
from collective.merge import judging
from collective.exchange import pull as pull_module
from collective.judge import cache as analyses
from collective.agent import Agent, MemoryInput
from collective.runtime.gc_pause import gc_paused
from collective.judge import LearnedJudge, RuleJudge
from collective.judge.cascade import CascadeJudge

# the learned judge (the default), the cascade ([merge] cross_encoder), and the rule judge
JUDGES = {"cascade": CascadeJudge, "learned": LearnedJudge, "rules": RuleJudge}
from collective.model import Memory, utcnow

from benchkit import VectorsOnly, parse_args, work_folder

MODEL_VERSION = "bench-clustered-v1"
BATCH = 10_000
QUICK = {"n_local": 300, "n_remote": 50}


def clustered(rng: np.random.Generator, centres: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Members of the given clusters: centre plus noise of varying spread, unit length.

    With noise sigma per dimension, two members of one cluster have cosine about
    1 / (1 + dim * sigma^2); sigma in [0.02, 0.06] puts pairs on both sides of 0.6.
    """
    dim = centres.shape[1]
    sigma = rng.uniform(0.02, 0.06, size=(len(which), 1)).astype(np.float32)
    v = centres[which] + rng.standard_normal((len(which), dim), dtype=np.float32) * sigma
    return v / np.linalg.norm(v, axis=1, keepdims=True)


# What a cluster's memories say: an object with an identity and a statement, and how
# a peer contradicts or hedges it. The judge reads these; the vectors put them together.
OBJECTS = ["coolant pump", "rover", "airlock", "solar array", "water valve", "drill", "heat exchanger"]
STATEMENTS = [("is safe to operate", "is not safe to operate", "might be safe to operate"),
              ("is running", "is not running", "is probably running"),
              ("is sealed", "is not sealed", "may be sealed"),
              ("passed its inspection", "failed its inspection", "probably passed its inspection")]
AGREE, CONTRADICT, HEDGE = 0, 1, 2


def topic(t: int) -> tuple[str, int]:
    """Cluster t is about one object and one statement about it."""
    return f"{OBJECTS[t % len(OBJECTS)].capitalize()} {t} in module {chr(65 + t % 26)}", (t // len(OBJECTS)) % len(STATEMENTS)


def text(t: int, form: int, n: int) -> str:
    subject, statement = topic(t)
    return f"{subject} {STATEMENTS[statement][form]} (report {n})"


def peer_memories(rng: np.random.Generator, centres: np.ndarray, n: int, first: int) -> tuple[np.ndarray, list[str]]:
    """A peer's memories: 80% on topics the receiver knows (agreeing, contradicting or
    hedging), 20% on new ones. `first` numbers their reports after everyone else's."""
    n_clusters, dim = centres.shape
    known = rng.random(n) < 0.8
    topics = np.where(known, rng.integers(0, n_clusters, n), n_clusters + first + np.arange(n))
    forms = rng.choice([AGREE, CONTRADICT, HEDGE], size=n, p=[0.7, 0.15, 0.15])
    new_centres = rng.standard_normal((n, dim), dtype=np.float32)
    new_centres /= np.linalg.norm(new_centres, axis=1, keepdims=True)
    vectors = clustered(rng, centres, np.where(known, topics, 0))
    vectors[~known] = new_centres[~known]
    texts = [text(int(t), int(f) if k else AGREE, first + j) for j, (t, f, k) in enumerate(zip(topics, forms, known))]
    return vectors, texts


def store(agent: Agent, vectors: np.ndarray, texts: list[str]) -> None:
    for start in range(0, len(vectors), BATCH):
        agent.store_many([MemoryInput(texts[i], vector=vectors[i], importance=0.5)
                          for i in range(start, min(start + BATCH, len(vectors)))])


def brute_force_candidates(matrix: np.ndarray, ids: list[str], queries: np.ndarray, k: int,
                           floor: float) -> list[list[tuple[str, float]]]:
    """Exact cosine top-k of every query over every local vector (unit rows)."""
    out: list[list[tuple[str, float]]] = []
    for start in range(0, len(queries), 256):
        sims = queries[start:start + 256] @ matrix.T
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for row, cols in zip(sims, top):
            cols = cols[np.argsort(-row[cols])]
            out.append([(ids[c], float(row[c])) for c in cols if row[c] >= floor])
    return out


class Classify:
    """The classify stage outside a pull, its candidate search swappable: what
    pull_peer does between verify and apply (held rows, candidates, plan)."""

    def __init__(self, receiver: Agent, incoming: list[Memory]):
        self.receiver, self.incoming = receiver, incoming
        repo = receiver.repo
        self.held = {r["id"]: Memory.from_row(r) for r in repo.select_in("memories", "id", [m.id for m in incoming])}
        self.fresh = [m for m in incoming if m.id not in self.held]

    def brute_force(self, floor: float) -> tuple[float, dict]:
        """Exact neighbours: read every local vector, cosine top-k by matrix product."""
        clock = time.perf_counter()
        rows = [r for r in self.receiver.repo.select("memories", columns=("id", "vector", "retracted", "absorbed_into"))
                if not r["retracted"] and r["absorbed_into"] is None]
        ids = [r["id"] for r in rows]
        matrix = np.frombuffer(b"".join(r["vector"] for r in rows), dtype="<f4").reshape(len(rows), -1)
        found = brute_force_candidates(matrix, ids, np.stack([m.vector for m in self.fresh]),
                                       merge.CANDIDATES_PER_MEMORY, floor)
        wanted = sorted({mid for hits in found for mid, _ in hits})
        local = {r["id"]: Memory.from_row(r) for r in self.receiver.repo.select_in("memories", "id", wanted)}
        candidates = {m.id: [(local[mid], s) for mid, s in hits] for m, hits in zip(self.fresh, found) if hits}
        return time.perf_counter() - clock, candidates

    def ann(self, floor: float) -> tuple[float, dict]:
        clock = time.perf_counter()
        candidates = merge.find_candidates(self.receiver.index(), self.receiver.tables.memories, self.fresh, floor)
        return time.perf_counter() - clock, candidates

    def plan(self, candidates: dict, comparator) -> tuple[float, merge.MergePlan]:
        """As pull_peer does: the kept analyses first, then every pair judged on every core."""
        clock = time.perf_counter()
        missing = analyses.recall(self.receiver.repo, getattr(comparator, "judge", None),
                                  {c.content for hits in candidates.values() for c, _ in hits})
        ctx = merge.MergeContext(receiver=self.receiver.agent_id, trust=self.receiver.trust_scores(),
                                 known_cases=self.receiver.tables.cases.by_id(), settings=self.receiver.settings,
                                 now=utcnow())
        planned, _ = judging.plan_pull("mars-1", "head", self.incoming, self.held, candidates, comparator, ctx,
                                       unread=set(missing))
        return time.perf_counter() - clock, planned


def encoder_read(candidates: dict, fresh, absorb_at: float) -> int:
    """How many of these pairs the cascade's cross-encoder reads (counted here, since the pull
    judges in forked workers whose counts die with them)."""
    judge = CascadeJudge()
    pairs = [(c, m, s) for m in fresh for c, s in merge.judged_candidates(m, candidates, judge.candidate_floor)]
    return sum(not judge.settled(judge.weigh(judge.analyse(c.content), judge.analyse(m.content), s), absorb_at)
               for c, m, s in pairs)


def forget_judged_texts() -> None:
    """Empty the judge package's caches of texts and words (functools caches of more than one
    entry), so the pull meets them cold, as a new process does; the baselines filled them with
    the same texts. Its loaded tables and models stay, as a long-lived agent keeps them."""
    for name, module in list(sys.modules.items()):
        if name.startswith("collective.judge"):
            for value in vars(module).values():
                info = getattr(value, "cache_info", None)
                if info is not None and (info().maxsize or 2) > 1:
                    value.cache_clear()


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-local", type=int, default=100_000, help="memories the receiver holds")
    parser.add_argument("--n-remote", type=int, default=10_000, help="new memories the peer brings")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--clusters", type=int, default=0, help="topic clusters (default: n_local / 50)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", help="keep the agents and commons in DIR/merge (default: a temporary folder, "
                        "removed afterwards)")
    parser.add_argument("--judge", choices=sorted(JUDGES), default="learned", help="the judge the pulls use (default: learned, the default judge)")
    parser.add_argument("--profile", help="write a cProfile of the pull to this file and print its top lines")
    args = parse_args(parser, argv, QUICK)

    rng = np.random.default_rng(args.seed)
    n_clusters = args.clusters or max(1, args.n_local // 50)
    centres = rng.standard_normal((n_clusters, args.dim), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)

    local_topics = rng.integers(0, n_clusters, args.n_local)
    local_vectors = clustered(rng, centres, local_topics)
    local_texts = [text(int(t), AGREE, i) for i, t in enumerate(local_topics)]

    remote_vectors, remote_texts = peer_memories(rng, centres, args.n_remote, args.n_local)
    second_vectors, second_texts = peer_memories(rng, centres, args.n_remote, args.n_local + args.n_remote)

    with work_folder(args.dir, "merge") as root:
        embedder = VectorsOnly(args.dim, MODEL_VERSION)
        setup = time.perf_counter()
        # each agent a judge of its own: the process-wide default judge would keep the
        # analyses the index makes in memory through the pulls, as no new process has them
        receiver = Agent.init("earth-1", home=root / "home", embedder=embedder, judge=JUDGES[args.judge]())
        sender = Agent.init("mars-1", home=root / "home", embedder=embedder, judge=JUDGES[args.judge]())
        url = f"file://{root / 'commons.db'}"
        receiver.add_remote("origin", url)
        sender.add_remote("origin", url)
        store(receiver, local_vectors, local_texts)
        stored_s = time.perf_counter() - setup
        clock = time.perf_counter()
        receiver.index()  # built, with the judge's analyses, before the sync, as an agent that recalls keeps it
        index_s = time.perf_counter() - clock
        receiver.close()
        receiver = Agent.open("earth-1", home=root / "home", embedder=embedder, judge=JUDGES[args.judge]())
        store(sender, remote_vectors, remote_texts)
        sender.push()
        setup_s = time.perf_counter() - setup

        # the baseline, and the phase-only rule, measured before the pull (which then finds nothing new)
        incoming = [Memory.from_row(r) for r in sender.repo.select("memories", {"origin_agent": "mars-1"})]
        with gc_paused():  # as in a pull
            classify = Classify(receiver, incoming)
            judge_floor, phase_floor = JUDGES[args.judge]().candidate_floor, receiver.settings.similarity_threshold
            brute_search_s, exact = classify.brute_force(judge_floor)
            # every judge plans the same exact candidates, each cold: the pull's judge first
            judged = {name: classify.plan(exact, merge.JudgeComparator(JUDGES[name](), threshold=phase_floor))
                      for name in sorted(JUDGES, key=lambda n: n != args.judge)}
            ann_search_s, approx = classify.ann(judge_floor)
            phase = merge.PhaseComparator(phase_floor)
            above = lambda found: {k: [(m, s) for m, s in v if s >= phase_floor] for k, v in found.items()}
            brute_phase_s = classify.plan(above(exact), phase)[0] + brute_search_s
            ann_phase_s = classify.plan(above(approx), phase)[0] + ann_search_s
        # What the report needs of the baselines, kept as numbers and ids; their plans, memories
        # and analyses go before the pull: held, they were 1.6M objects the pull's collector
        # passes walked (2 s of a 16 s pull) that no `cmem pull` process holds.
        exact_pairs = {(p.remote_id, p.local_id) for p in judged[args.judge][1].pairs}
        brute_plan_s = judged[args.judge][0]
        judged = {name: {"plan_s": round(secs, 3), "pairs": len(plan.pairs),
                         "relations": {r: plan.counts[r] for r in ("constructive", "partial", "destructive", "independent")}}
                  for name, (secs, plan) in judged.items()}
        encoder_pairs = encoder_read(exact, classify.fresh, phase_floor)
        del incoming, classify, exact, approx
        forget_judged_texts()
        gc.collect()

        judge_s = [0.0]  # how much of the pull's classify stage judging the pairs (on every core) and planning take
        real_plan_pull = pull_module.plan_pull

        def timed_plan_pull(*args, **kwargs):
            started = time.perf_counter()
            try:
                return real_plan_pull(*args, **kwargs)
            finally:
                judge_s[0] += time.perf_counter() - started

        pull_module.plan_pull = timed_plan_pull
        profiler = cProfile.Profile() if args.profile else None
        clock = time.perf_counter()
        if profiler:
            profiler.enable()
        try:
            result = receiver.pull("origin")  # the agent's own comparator: the chosen judge, cache cold
        finally:
            if profiler:
                profiler.disable()
            pull_module.plan_pull = real_plan_pull
        total_s = time.perf_counter() - clock
        if not judge_s[0]:  # the wrapper no longer sits on the pull's path: say so, never print a 0
            raise SystemExit("the pull did not call collective.exchange.pull.plan_pull: time its judging anew")
        (report,) = result["peers"]
        stages = report["seconds"]

        ann_pairs = {(p["remote"], p["local"]) for p in report["pairs"]}
        brute_classify_s = brute_search_s + brute_plan_s
        out = {
            "bench": "merge", "n_local": args.n_local, "n_remote": args.n_remote, "dim": args.dim,
            "clusters": n_clusters, "total_s": round(total_s, 3),
            "stages_s": {k: stages.get(k) for k in ("fetch", "diff", "verify", "classify", "apply")},
            "other_s": round(total_s - sum(v for k, v in stages.items() if k != "verify"), 3),  # verify runs within classify
            "classify_judge_and_plan_s": round(judge_s[0], 3),
            "baseline_bruteforce_classify_s": round(brute_classify_s, 3),
            "classify_speedup": round(brute_classify_s / stages["classify"], 2),
            "candidates_s": {"ann": round(ann_search_s, 3), "bruteforce": round(brute_search_s, 3)},
            "candidates_speedup": round(brute_search_s / ann_search_s, 2),
            "phase_rule_classify_s": {"ann": round(ann_phase_s, 3), "bruteforce": round(brute_phase_s, 3),
                                      "speedup": round(brute_phase_s / ann_phase_s, 2)},
            "pair_recall_vs_exact": round(len(exact_pairs & ann_pairs) / len(exact_pairs), 4) if exact_pairs else 1.0,
            "judge": args.judge,
            "judges_on_exact_candidates": judged,
            "cascade_encoder_read": encoder_pairs,
            "summary": {k: report["summary"][k] for k in ("new", "constructive", "partial", "destructive",
                                                           "independent", "links")},
            "cases": len(report["summary"]["cases"]),
            "targets": {"total_le_10s": total_s <= 10.0, "classify_ge_5x": brute_classify_s / stages["classify"] >= 5.0},
            "setup_s": {"store_local": round(stored_s, 1), "index_and_analyses": round(index_s, 1),
                        "all": round(setup_s, 1)},
        }
        # A second peer's 10k, pulled by a fresh judge (nothing in memory, as in a new process):
        # the analyses the first pull kept are read from the database instead of made again.
        second = Agent.init("venus-2", home=root / "home", embedder=embedder)
        second.add_remote("origin", url)
        store(second, second_vectors, second_texts)
        second.push()
        second.close()
        receiver.close()
        receiver = Agent.open("earth-1", home=root / "home", embedder=embedder, judge=JUDGES[args.judge]())
        clock = time.perf_counter()
        receiver.index()  # the first pull's memories join the index (the next recall would do it)
        index_update_s = time.perf_counter() - clock
        clock = time.perf_counter()
        (again,) = receiver.pull("origin", peers=["venus-2"])["peers"]
        out["second_peer_pull"] = {"total_s": round(time.perf_counter() - clock, 3),
                                   "index_update_before_s": round(index_update_s, 3),
                                   "stages_s": {k: again["seconds"].get(k) for k in ("verify", "classify", "apply")},
                                   "kept_analyses": receiver.repo.count(analyses.TABLE)}
        receiver.close()
        sender.close()
    print(json.dumps(out), flush=True)
    if profiler:
        profiler.dump_stats(args.profile)
        pstats.Stats(args.profile, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
    return out


if __name__ == "__main__":
    main()
