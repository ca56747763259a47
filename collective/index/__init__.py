"""The ANN index kept beside an agent's database."""

from .hnsw import EF_SEARCH, VectorIndex, indexable  # noqa: F401
