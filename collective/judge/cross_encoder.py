"""The cross-encoder: a small NLI model that reads two memories together.

The slot readers see numbers, times, days and identifiers; they cannot know
that "in theatre having surgery" rules out "discharged home". A cross-encoder
reads both texts in one pass and can. This one is all-MiniLM-L6-v2 fine-tuned
here (scripts/train_cross_encoder.py) on SNLI and on the agent-domain dev
pairs, with two heads: SNLI's entailment / neutral / contradiction and the
judge's four relations. It ships as int8 ONNX in judge_data/ (SNLI is
CC BY-SA 4.0: judge_data/NOTICE) and runs with onnxruntime; no torch.

`CrossEncoder.read(pairs)` gives, per pair, ten probabilities (`READING`): the
relation head averaged over both orders, then NLI with a first and with b
first. The session is built on first use in each process, so a forked worker
builds its own (onnxruntime's threads do not survive a fork).
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np

from .protocol import RELATIONS

MODEL_FILE = "cross_encoder.onnx"
MAX_TOKENS = 96  # a pair of memories; longer pairs are cut, the longer text first
NLI = ("entailment", "neutral", "contradiction")
READING = (tuple(f"ce_{r}" for r in RELATIONS) + tuple(f"ce_ab_{n}" for n in NLI)
           + tuple(f"ce_ba_{n}" for n in NLI))


def model_path() -> Path | None:
    """The shipped model file, or None where this install has none."""
    path = resources.files("collective.judge") / "judge_data" / MODEL_FILE
    return Path(str(path)) if path.is_file() else None


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class CrossEncoder:
    """Reads pairs of texts, each pair on its own; pure, so fork safe.

    A pair's two orders go to the model together and alone: the int8 model quantises its
    activations over what it is given, so a pair read beside others would be judged a little
    differently by its company. Read alone, a pair's reading depends on the pair only, and
    needs no padding (both orders have the same tokens). It is as fast as batches of 32 here."""

    fork_safe = True  # the session is per process, built on first use

    def __init__(self, path: Path | None = None, *, threads: int = 1):
        self.path = path or model_path()
        if self.path is None:
            raise FileNotFoundError(f"no {MODEL_FILE} in collective/judge/judge_data")
        self.threads = threads
        self._session = None
        self._pid = -1
        self._tokenizer = None

    def _ready(self):
        if self._session is None or self._pid != os.getpid():
            import onnxruntime as ort
            from tokenizers import Tokenizer

            from ..embedders import load_tokenizer

            options = ort.SessionOptions()
            options.log_severity_level = 3
            options.intra_op_num_threads = options.inter_op_num_threads = self.threads
            self._session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
            self._tokenizer = load_tokenizer(Tokenizer)
            self._tokenizer.enable_truncation(MAX_TOKENS)
            self._tokenizer.no_padding()
            self._pid = os.getpid()
        return self._session, self._tokenizer

    def read(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Per pair, the probabilities named by `READING` ([n, 10]); both orders are read."""
        session, tokenizer = self._ready()
        out = np.empty((len(pairs), len(READING)), dtype=np.float64)
        for i, (a, b) in enumerate(pairs):
            enc = tokenizer.encode_batch([(a, b), (b, a)])
            feeds = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                     "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
                     "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)}
            nli, relation = session.run(["nli", "relation"], feeds)
            p_rel = _softmax(relation.astype(np.float64)).mean(axis=0)
            p_nli = _softmax(nli.astype(np.float64))
            out[i] = np.concatenate([p_rel, p_nli[0], p_nli[1]])
        return out


@lru_cache(maxsize=1)
def shipped() -> CrossEncoder | None:
    """The process-wide cross-encoder, or None where the model is not installed."""
    path = model_path()
    return CrossEncoder(path) if path else None
