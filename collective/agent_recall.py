"""The Agent's verbs for finding memories: recall and list (a part of the facade, kept apart for its size)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from .model import validate_content, validate_ref, validate_text, validate_vector
from .recall import Filters, Recalled, validate_min_score

if TYPE_CHECKING:
    from .embedding_model import EmbeddingModel
    from .recall import Recall
    from .reports import ListReport


class RecallVerbs:
    """Mixed into Agent, whose `recaller` (recall.Recall), `model` and `dim` these use."""

    recaller: Recall
    model: EmbeddingModel
    dim: int

    def recall(self, query: str, *, k: int = 5, as_of: str | None = None, include_faded: bool = False,
               include_refuted: bool = False, vector: Any = None, now=None, consensus: bool = False,
               min_score: float | None = None, tags: Iterable[str] | None = None,
               categories: Iterable[str] | None = None, origins: Iterable[str] | None = None,
               since: str | None = None, until: str | None = None) -> Recalled:
        """Memories ranked by relevance (the query's words and meaning) times damped resonance
        (amplitude, trust, recency, access); those less relevant than `min_score` are left out
        and, when none passes, the closest is named (`.closest`). Refuted ones only when asked
        (marked by their `refuted_by`); `consensus`: only those the collective promoted to main.
        `tags` (all of them), `categories`, `origins` (any of them), `since`/`until` narrow it."""
        query = validate_content(query, "query") if vector is None else validate_text(query, "query")
        query_vector = validate_vector(vector if vector is not None else self.model.embed([query])[0], self.dim)
        filters = Filters.checked(tags=tags, categories=categories, origins=origins, since=since, until=until)
        return self.recaller.recall(query, query_vector, k=k, as_of=validate_ref(as_of), include_faded=include_faded,
                                    include_refuted=include_refuted, now=now, consensus=consensus,
                                    min_score=validate_min_score(min_score), filters=filters)

    def list_memories(self, *, limit: int = 50, offset: int = 0, include_refuted: bool = False,
                      tags: Iterable[str] | None = None, categories: Iterable[str] | None = None,
                      origins: Iterable[str] | None = None, since: str | None = None,
                      until: str | None = None) -> ListReport:
        """A page of the memories recall can find, newest first, narrowed like recall:
        {"total", "offset", "memories"}."""
        filters = Filters.checked(tags=tags, categories=categories, origins=origins, since=since, until=until)
        return self.recaller.browse(filters, limit=limit, offset=offset, include_refuted=include_refuted)
