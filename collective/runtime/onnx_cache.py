"""An ONNX model optimised once and kept on disk, so that a process loads a finished graph
instead of optimising one.

onnxruntime's graph optimisation is what makes the default embedder fast: constant
folding turns its int8 weights into floats once (unoptimised, every run converts them
again: ~30 ms a text) and fusion merges its attention. It costs ~0.3 s per process.
Saved once, with its weights in a file of their own beside the graph, the optimised
model loads in ~10 ms without pre-packing its weights (a process that embeds one text)
and ~50 ms with it (the faster session for many). It takes ~90 MB (the weights as
floats) and lives next to the model, in a folder named after the model file's size and
time and onnxruntime's version, so another model or another onnxruntime builds anew.
Where that folder cannot be written, there is no cache and the caller optimises in
memory, as before.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

GRAPH = "model.onnx"
WEIGHTS = "model.onnx.data"
# Extended, not "all": the layout changes of "all" may suit only the machine that made
# them, and this file may be read by another (a shared install).
LEVEL = "ORT_ENABLE_EXTENDED"


def folder_for(ort: Any, source: Path) -> Path:
    """Where the optimised form of `source` is kept, for this onnxruntime."""
    stat = source.stat()
    return source.parent / f".{source.stem}-optimised-ort{ort.__version__}-{stat.st_size}-{stat.st_mtime_ns}"


def optimised(ort: Any, source: Path) -> Path | None:
    """The optimised graph of `source` (built and kept on first use), or None where it can
    be neither found nor kept."""
    try:
        folder = folder_for(ort, source)
    except OSError:
        return None
    graph = folder / GRAPH
    if graph.is_file():
        return graph
    try:
        _build(ort, source, folder)
    except (OSError, *_errors(ort)):
        return None
    return graph if graph.is_file() else None


def _build(ort: Any, source: Path, folder: Path) -> None:
    """Optimise into a staging folder, make it durable, then rename it into place: a reader
    sees the whole model or none, and of two processes building at once, one's folder stays."""
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    try:
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, LEVEL)
        options.optimized_model_filepath = str(staging / GRAPH)
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS)
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        for name in (WEIGHTS, GRAPH):
            _fsync(staging / name)
        staging.chmod(0o755)  # made 0700; readable by whoever may read the model beside it
        try:
            os.rename(staging, folder)
        except OSError:
            if not (folder / GRAPH).is_file():  # not another builder's finished folder: a real failure
                raise
        _fsync(folder.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _errors(ort: Any) -> tuple[type[BaseException], ...]:
    """onnxruntime's own exception types (they derive from Exception alone)."""
    state = ort.capi.onnxruntime_pybind11_state
    return tuple(getattr(state, name) for name in ("Fail", "RuntimeException", "InvalidArgument", "NoSuchFile",
                                                    "InvalidProtobuf") if hasattr(state, name))
