"""The judge's cross-encoder as a torch module, for training only (scripts/train_cross_encoder.py).

A 6-layer MiniLM (BERT) encoder read from the all-MiniLM-L6-v2 safetensors,
mean-pooled, with two heads: `nli` (entailment, neutral, contradiction; trained
on SNLI) and `relation` (the judge's four relations; trained on the agent-domain
dev pairs). The runtime never imports torch: the trained weights are written to
ONNX (scripts/cross_encoder_onnx.py) and run with onnxruntime.
"""

from __future__ import annotations

import math

import torch
from torch import nn

HIDDEN, HEADS, LAYERS, FFN, EPS = 384, 12, 6, 1536, 1e-12
# the heads' orders, as collective.judge.cross_encoder reads them (NLI, and RELATIONS): written out
# here because the training environment need not have collective's own dependencies
NLI_LABELS = ("entailment", "neutral", "contradiction")
RELATION_LABELS = ("constructive", "destructive", "partial", "independent")


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(HIDDEN, HIDDEN) for _ in range(4))
        self.ln1 = nn.LayerNorm(HIDDEN, eps=EPS)
        self.up, self.down = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN)
        self.ln2 = nn.LayerNorm(HIDDEN, eps=EPS)
        self.drop = nn.Dropout(0.1)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        n, t, _ = x.shape

        def heads(h):
            return h.view(n, t, HEADS, HIDDEN // HEADS).transpose(1, 2)

        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS) + bias, dim=-1)
        ctx = (self.drop(att) @ v).transpose(1, 2).reshape(n, t, HIDDEN)
        x = self.ln1(x + self.drop(self.o(ctx)))
        return self.ln2(x + self.drop(self.down(nn.functional.gelu(self.up(x)))))


class CrossEncoder(nn.Module):
    def __init__(self, vocab: int = 30522):
        super().__init__()
        self.words = nn.Embedding(vocab, HIDDEN)
        self.positions = nn.Embedding(512, HIDDEN)
        self.types = nn.Embedding(2, HIDDEN)
        self.ln = nn.LayerNorm(HIDDEN, eps=EPS)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.drop = nn.Dropout(0.1)
        self.nli = nn.Linear(HIDDEN, len(NLI_LABELS))
        self.relation = nn.Linear(HIDDEN, len(RELATION_LABELS))

    def pooled(self, ids, types, mask):
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.ln(self.words(ids) + self.positions(positions)[None] + self.types(types))
        x = self.drop(x)
        bias = (1.0 - mask[:, None, None, :].float()) * -1e4
        for layer in self.layers:
            x = layer(x, bias)
        m = mask[..., None].float()
        return (x * m).sum(1) / m.sum(1)

    def forward(self, ids, types, mask):
        h = self.drop(self.pooled(ids, types, mask))
        return self.nli(h), self.relation(h)


# safetensors name -> this module's name, per layer
_LAYER_NAMES = {
    "attention.self.query": "q", "attention.self.key": "k", "attention.self.value": "v",
    "attention.output.dense": "o", "attention.output.LayerNorm": "ln1",
    "intermediate.dense": "up", "output.dense": "down", "output.LayerNorm": "ln2",
}


def load_minilm(model: CrossEncoder, weights: dict) -> None:
    """Copy the pretrained BERT weights (a safetensors dict of numpy arrays) into `model`."""
    state = {
        "words.weight": weights["embeddings.word_embeddings.weight"],
        "positions.weight": weights["embeddings.position_embeddings.weight"],
        "types.weight": weights["embeddings.token_type_embeddings.weight"],
        "ln.weight": weights["embeddings.LayerNorm.weight"],
        "ln.bias": weights["embeddings.LayerNorm.bias"],
    }
    for i in range(LAYERS):
        for theirs, ours in _LAYER_NAMES.items():
            for part in ("weight", "bias"):
                state[f"layers.{i}.{ours}.{part}"] = weights[f"encoder.layer.{i}.{theirs}.{part}"]
    missing = model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in state.items()}, strict=False)
    heads = {"nli.weight", "nli.bias", "relation.weight", "relation.bias"}
    if set(missing.missing_keys) != heads or missing.unexpected_keys:
        raise ValueError(f"weights do not fit the model: {missing}")
