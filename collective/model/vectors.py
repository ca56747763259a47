"""Embedding vectors: checking what a caller gives, and the bytes a memory row keeps."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import BadInput

_BLOB_DTYPE = np.dtype("<f4")


def validate_vector(vector: Any, dim: int) -> np.ndarray:
    try:
        array = np.asarray(vector, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise BadInput("vector", "not a numeric array") from e
    if array.shape != (dim,):
        raise BadInput("vector", f"expected {dim} dimensions, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise BadInput("vector", "contains NaN or infinity")
    norm = float(np.linalg.norm(array))
    if norm == 0.0:
        raise BadInput("vector", "is all zeros")
    return array / norm


def unit_rows(vectors: Sequence[Any], dim: int) -> np.ndarray | None:
    """What validate_vector makes of each, at once: a (len(vectors), dim) float32 array of
    unit rows; None where any one of them would fail (validate_vector then says which and why)."""
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError):
        return None
    if matrix.shape != (len(vectors), dim) or not np.isfinite(matrix).all():
        return None
    norms = np.linalg.norm(matrix, axis=1)
    if not norms.all():
        return None
    return matrix / norms[:, None]


def vector_to_blob(vector: np.ndarray) -> bytes:
    if isinstance(vector, np.ndarray) and vector.dtype == _BLOB_DTYPE:
        return vector.tobytes()
    return np.asarray(vector, dtype=_BLOB_DTYPE).tobytes()


def blob_to_vector(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4")
