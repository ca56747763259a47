#!/usr/bin/env python
"""Build the judge's word vectors: the embedder's vector of each whole word of its vocabulary.

Usage: scripts/build_word_vectors.py [--out DIR]

Every whole lowercase word of the MiniLM tokenizer's vocabulary (about 21,700)
is embedded alone by the default embedder; the vectors are projected onto
their first 64 principal axes, L2-normalised and stored as int8
(collective/judge/judge_data/word_vectors.npy, with the words, one a line, in
word_vectors.txt). The judge aligns two texts word by word with them
(`collective.judge.align`): "silent" meets "quiet" and "lorry" meets "truck"
where the stems differ. About 20 s on one core; the same machine rebuilds the
same bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DIMS = 64


def vocabulary() -> list[str]:
    from collective.embedders import tokenizer_path

    vocab = json.loads(tokenizer_path().read_text(encoding="utf-8"))["model"]["vocab"]
    return sorted(w for w in vocab if re.fullmatch(r"[a-z]{2,}", w))


def build(words: list[str]) -> np.ndarray:
    from collective.embedders import default_embedder

    vecs = default_embedder().embed(words).astype(np.float64)
    centred = vecs - vecs.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    axes = axes[:DIMS] * np.sign(axes[:DIMS, :1])  # a fixed sign per axis
    low = centred @ axes.T
    low /= np.linalg.norm(low, axis=1, keepdims=True)
    return np.round(low * 127).astype(np.int8)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build the judge's word vectors from the default embedder.")
    ap.add_argument("--out", default=str(ROOT / "collective" / "judge" / "judge_data"), help="folder to write into")
    args = ap.parse_args(argv)
    words = vocabulary()
    table = build(words)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "word_vectors.npy", table, allow_pickle=False)
    (out / "word_vectors.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    print(json.dumps({"words": len(words), "dims": DIMS, "bytes": table.nbytes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
