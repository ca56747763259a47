"""Recall: hybrid search over an agent's memories (service), the filters that narrow it, what
it returns, and the access counts it keeps."""

from .access import ACCESS_FLUSH_SECONDS, AccessCounter  # noqa: F401
from .filters import Filters, validate_min_score  # noqa: F401
from .results import Recalled, RecallHit  # noqa: F401
from .service import MAX_K, Recall  # noqa: F401
