#!/usr/bin/env python3
"""The default embedder's throughput, and a store of real text beside it. Prints one JSON
line per measurement.

- embed_per_s (short, ~9 tokens; long, ~30 tokens): all-MiniLM-L6-v2 (the default
  embedder) as a batch store runs it (batches of 64, the optimised model kept on disk,
  onnxruntime's threads). Baseline: the model alone (its ONNX session on the same
  token ids, no tokenizing or pooling). Beside it, other settings of the same model on
  the same texts: other batch sizes, one thread, threads that sleep instead of spinning
  while they wait, the unoptimised model (on 256 of them).
- store_text_per_s: Agent.store_many of texts of 6 to 40 words with the default
  embedder, one commit. Baseline: the embedder alone on the same texts.

    python scripts/bench_embed.py            # 2,000 texts each
    python scripts/bench_embed.py --quick    # 8, each setting once: seconds
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from collective.agent import Agent, MemoryInput  # first: sqlite3 speaks Dolt
from collective.embedders import MiniLMEmbedder
from collective.runtime import onnx_cache

import numpy as np
import onnxruntime as ort

from benchkit import parse_args

SEED = 20260402
QUICK = {"n": 8}
WORDS = ("the coolant pump pressure in module habitat crew rover survey ridge water ice storm dust valve loop "
         "hatch sealed open reading sensor deck units nominal returned before after during station array power "
         "battery airlock oxygen filter replaced checked tuesday north south seven twelve degrees").split()


def load() -> float:
    return round(os.getloadavg()[0], 2)


def texts(n: int, low: int, high: int, rng: np.random.Generator) -> list[str]:
    """n texts of `low` to `high` words (high exclusive) drawn from WORDS."""
    return [" ".join(rng.choice(WORDS, int(k))) for k in rng.integers(low, high, n)]


RUNS = 2  # each rate is the best of this many (the first may meet a cold cache or other work)


def rate(fn, count: int, runs: int | None = None) -> float:
    """count / seconds of fn, the best of `runs` (default RUNS)."""
    best = float("inf")
    for _ in range(runs or RUNS):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return round(count / best, 1)


def session(model: Path, *, threads: int = 0, optimise: bool = False, spin: bool = True):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    if not spin:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if not optimise:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def variant(embedder: MiniLMEmbedder, run_session, batch: int = 64):
    """The embedder's own embed() with another session or batch size."""
    def embed(items: list[str]) -> None:
        embedder._sessions, embedder._batch_size = {True: run_session}, batch
        embedder.embed(items)
    return embed


def bench_embed(n: int) -> None:
    rng = np.random.default_rng(SEED)
    source = MiniLMEmbedder()._model_path
    kept = onnx_cache.optimised(ort, source) or source
    for name, items in (("short", texts(n, 5, 8, rng)), ("long", texts(n, 22, 26, rng))):
        embedder = MiniLMEmbedder()
        embedder._embedded = 10**9  # straight to the session a batch runs on
        embedder.embed(items[:64])  # built and warm
        tokens = embedder._tokenizer.encode_batch(items)
        ids = np.array([e.ids for e in tokens[:64]], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        own = embedder._sessions[True]
        l0 = load()
        default = rate(lambda: embedder.embed(items), len(items))
        model_alone = rate(lambda: [own.run(["last_hidden_state"], feed) for _ in range(0, len(items), 64)],
                           len(items))
        others = {f"batch {b}": rate(lambda b=b: variant(embedder, own, b)(items), len(items)) for b in (16, 32, 128)}
        others["one thread"] = rate(lambda: variant(embedder, session(kept, threads=1))(items), len(items))
        others["threads that do not spin"] = rate(lambda: variant(embedder, session(kept, spin=False))(items),
                                                  len(items))
        few = items[:256]  # ~10x slower: fewer
        others["unoptimised model"] = rate(lambda: variant(embedder, session(source))(few), len(few))
        print(json.dumps({"measurement": "embed_per_s", "texts": name, "n": len(items),
                          "tokens_mean": round(float(np.mean([len(e.ids) for e in tokens])), 1),
                          "texts_per_s": default, "setting": "batches of 64, optimised model, threads: onnxruntime's",
                          "baseline": {"what": "the ONNX session alone on the same token ids, batches of 64",
                                       "texts_per_s": model_alone},
                          "other_settings_texts_per_s": others, "load_1m": [l0, load()],
                          "cpus": os.cpu_count()}), flush=True)


def bench_store_text(n: int, work: Path) -> None:
    items = texts(n, 6, 41, np.random.default_rng(SEED + 1))
    embedder = MiniLMEmbedder()
    embedder.embed(items[:64] * 2)  # past the fast-start session, as a process that embeds much is
    l0 = load()
    alone = rate(lambda: embedder.embed(items), len(items))
    with Agent.init("bench-text", home=work, embedder=embedder) as agent:
        stored = rate(lambda: agent.store_many([MemoryInput(t) for t in items]), len(items), runs=1)  # once: new
        assert agent.repo.count("memories") == len(set(items))
    print(json.dumps({"measurement": "store_text_per_s", "n": len(items), "memories_per_s": stored,
                      "baseline": {"what": "the default embedder alone on the same texts", "texts_per_s": alone},
                      "load_1m": [l0, load()], "cpus": os.cpu_count()}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="texts per measurement (default 2000)")
    args = parse_args(parser, argv, QUICK)
    global RUNS
    RUNS = 1 if args.quick else RUNS
    work = Path(tempfile.mkdtemp(prefix="cmem-bench-embed-"))
    try:
        bench_embed(args.n)
        bench_store_text(args.n, work / "home")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
