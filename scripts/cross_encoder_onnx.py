"""Write the trained cross-encoder (a torch checkpoint) as an int8 ONNX graph for onnxruntime.

The graph is built node by node from the weights (no exporter in between), so
it holds exactly the model of scripts/cross_encoder_model.py: inputs
input_ids, token_type_ids and attention_mask ([batch, tokens], int64); outputs
`nli` ([batch, 3] logits) and `relation` ([batch, 4] logits). Its MatMul and
Gather weights are then quantised to int8 (onnxruntime.quantization), and the
quantised graph is checked against the torch model on real pairs.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "collective" / "judge" / "judge_data" / "cross_encoder.onnx"
OPSET = 17


class Graph:
    """A small builder: named initializers and nodes, each output named after its node."""

    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def const(self, name: str, value) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, **attrs) -> str:
        from onnx import helper

        self.count += 1
        out = f"{kind.lower()}_{self.count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
        return self.op("Add", self.op("MatMul", x, self.const(f"{name}.w", w.T.copy())), self.const(f"{name}.b", b))

    def layer_norm(self, x: str, s: dict, name: str) -> str:
        return self.op("LayerNormalization", x, self.const(f"{name}.g", s[f"{name}.weight"]),
                       self.const(f"{name}.b", s[f"{name}.bias"]), epsilon=1e-12, axis=-1)


def build(state: dict):
    """The ONNX model of a CrossEncoder state dict (numpy arrays by parameter name)."""
    from onnx import TensorProto, helper

    from cross_encoder_model import HEADS, HIDDEN, LAYERS

    g = Graph()
    ids, types, mask = "input_ids", "token_type_ids", "attention_mask"
    tokens = g.op("Gather", g.op("Shape", ids), g.const("one", np.array(1, dtype=np.int64)), axis=0)
    positions = g.op("Range", g.const("zero", np.array(0, dtype=np.int64)), tokens, "one")
    x = g.op("Add", g.op("Add", g.op("Gather", g.const("words", state["words.weight"]), ids),
                         g.op("Gather", g.const("positions", state["positions.weight"]), positions)),
             g.op("Gather", g.const("types", state["types.weight"]), types))
    x = g.layer_norm(x, state, "ln")
    maskf = g.op("Cast", mask, to=TensorProto.FLOAT)
    bias = g.op("Mul", g.op("Sub", g.const("onef", np.array(1.0, np.float32)), maskf), g.const("neg", np.array(-1e4, np.float32)))
    bias = g.op("Unsqueeze", bias, g.const("axes12", np.array([1, 2], dtype=np.int64)))
    split = g.const("split", np.array([0, 0, HEADS, HIDDEN // HEADS], dtype=np.int64))
    merged = g.const("merged", np.array([0, 0, HIDDEN], dtype=np.int64))
    scale = g.const("scale", np.array(1 / math.sqrt(HIDDEN // HEADS), np.float32))
    for i in range(LAYERS):
        p = f"layers.{i}"

        def proj(name, perm, x=x, p=p):
            return g.op("Transpose", g.op("Reshape", g.linear(x, state[f"{p}.{name}.weight"], state[f"{p}.{name}.bias"], f"{p}.{name}"), split), perm=perm)

        q, k, v = proj("q", [0, 2, 1, 3]), proj("k", [0, 2, 3, 1]), proj("v", [0, 2, 1, 3])
        att = g.op("Softmax", g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), bias), axis=-1)
        ctx = g.op("Reshape", g.op("Transpose", g.op("MatMul", att, v), perm=[0, 2, 1, 3]), merged)
        x = g.layer_norm(g.op("Add", x, g.linear(ctx, state[f"{p}.o.weight"], state[f"{p}.o.bias"], f"{p}.o")), state, f"{p}.ln1")
        up = g.linear(x, state[f"{p}.up.weight"], state[f"{p}.up.bias"], f"{p}.up")
        gelu = g.op("Mul", g.op("Mul", up, g.const(f"{p}.half", np.array(0.5, np.float32))),
                    g.op("Add", g.op("Erf", g.op("Div", up, g.const(f"{p}.sqrt2", np.array(math.sqrt(2), np.float32)))), "onef"))
        x = g.layer_norm(g.op("Add", x, g.linear(gelu, state[f"{p}.down.weight"], state[f"{p}.down.bias"], f"{p}.down")), state, f"{p}.ln2")
    m = g.op("Unsqueeze", maskf, g.const("axis2", np.array([2], dtype=np.int64)))
    axis1 = g.const("axis1", np.array([1], dtype=np.int64))
    pooled = g.op("Div", g.op("ReduceSum", g.op("Mul", x, m), axis1, keepdims=0), g.op("ReduceSum", m, axis1, keepdims=0))
    outputs = {}
    for head in ("nli", "relation"):
        outputs[head] = g.linear(pooled, state[f"{head}.weight"], state[f"{head}.bias"], head)
        g.nodes.append(helper.make_node("Identity", [outputs[head]], [head]))
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"]) for n in (ids, types, mask)]
    outs = [helper.make_tensor_value_info(h, TensorProto.FLOAT, ["batch", n]) for h, n in (("nli", 3), ("relation", 4))]
    graph = helper.make_graph(g.nodes, "cross_encoder", inputs, outs, g.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="collective-memory")


def export(checkpoint: Path, tok, target: Path = TARGET) -> None:
    import onnx
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from cross_encoder_model import CrossEncoder
    from train_cross_encoder import agent_pairs, batch_tensors, CHECK_FILE

    model = CrossEncoder()
    model.load_state_dict(torch.load(checkpoint, weights_only=False)["model"])
    model.eval()
    state = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.onnx"
        onnx.save(build(state), plain)
        quantize_dynamic(str(plain), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul", "Gather"])
        pairs = agent_pairs([CHECK_FILE])[:256]
        ids, types, mask, labels = batch_tensors(tok, pairs)
        feeds = {"input_ids": ids.numpy(), "token_type_ids": types.numpy(), "attention_mask": mask.numpy()}
        with torch.no_grad():
            want = model(ids, types, mask)[1].numpy()
        for name, path in (("float", plain), ("int8", target)):
            got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(["relation"], feeds)[0]
            agree = float((got.argmax(-1) == want.argmax(-1)).mean())
            acc = float((got.argmax(-1) == labels.numpy()).mean())
            print(f"{name}: max |logit diff| {np.abs(got - want).max():.4f}, argmax agrees {agree:.3f}, "
                  f"accuracy {acc:.3f} (torch {(want.argmax(-1) == labels.numpy()).mean():.3f})")
    print(f"wrote {target} ({target.stat().st_size / 1e6:.1f} MB)")
