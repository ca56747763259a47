"""The agent's embedding model: its name and size known without loading it.

`cmem store` with a vector, `cmem status` and a pull's dimension checks need
the model's version and dimension, which the agent's own row records; only
embedding text loads the model (a second or so).
"""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np

from .embedders import DEFAULT_DIM, Embedder, default_embedder
from .errors import StorageError
from .store.tables import AgentTable


class EmbeddingModel:
    def __init__(self, agents: AgentTable, agent_id: str, embedder: Embedder | None = None):
        self.agents = agents
        self.agent_id = agent_id
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    @property
    def version(self) -> str:
        return self._embedder.model_version if self._embedder else self._own_row()["model_version"]

    @property
    def dim(self) -> int:
        if self._embedder is not None:
            return self._embedder.dim
        return int(json.loads(self._own_row()["capabilities"]).get("dim", DEFAULT_DIM))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(texts)

    def _own_row(self) -> dict:
        row = self.agents.get(self.agent_id)
        if row is None:
            raise StorageError(f"the agents table has no row for {self.agent_id}")
        return row
