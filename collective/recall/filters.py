"""What a recall or a listing is narrowed to, checked as a caller typed it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from ..errors import BadInput
from ..index.hnsw import VectorIndex
from ..model import CATEGORIES, iso, parse_time, row_tags, validate_agent_id, validate_number, validate_tags


@dataclass(frozen=True)
class Filters:
    """What a recall or a listing is narrowed to: memories with every tag, of any of the
    categories, from any of the origins, created in [since, until]."""
    tags: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None

    @classmethod
    def checked(cls, *, tags: Iterable[str] | None = None, categories: Iterable[str] | None = None,
                origins: Iterable[str] | None = None, since: str | None = None,
                until: str | None = None) -> "Filters":
        """Filters from what a caller typed; BadInput naming what is wrong."""
        categories = tuple(_listed(categories, "category"))
        for category in categories:
            if category not in CATEGORIES:
                raise BadInput("category", f"unknown category {category!r} (one of {', '.join(CATEGORIES)})")
        origins = tuple(validate_agent_id(o, "origin") for o in _listed(origins, "origin"))
        window = [None if t is None else _stamp(t, name) for t, name in ((since, "since"), (until, "until"))]
        if None not in window and window[0] > window[1]:
            raise BadInput("since", f"{since} is after --until {until}")
        return cls(tuple(validate_tags(_listed(tags, "tags"))), categories, origins, *window)

    def __bool__(self) -> bool:
        return bool(self.tags or self.categories or self.origins or self.since or self.until)

    def admits(self, row: Mapping) -> bool:
        """Whether a memory row passes (rows read from a past commit, where no index is)."""
        tags = row_tags(row)
        return (all(t in tags for t in self.tags) and (not self.categories or row["category"] in self.categories)
                and (not self.origins or row["origin_agent"] in self.origins)
                and (self.since is None or iso(parse_time(row["created_at"])) >= self.since)
                and (self.until is None or iso(parse_time(row["created_at"])) <= self.until))

    def allowed(self, index: VectorIndex, *, include_refuted: bool) -> np.ndarray:
        """By label of `index`: live, passing these filters, and not refuted unless asked."""
        if not self:
            return index.live if include_refuted else index.standing
        mask = index.allowed(tags=self.tags, categories=self.categories, origins=self.origins,
                             since=_epoch(self.since), until=_epoch(self.until))
        return mask if include_refuted else mask & ~index.refuted


def _listed(values, name: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise BadInput(name, f"must be a list of strings, got {values!r}")
    return list(values)


def _stamp(value, name: str) -> str:
    """A timestamp a caller typed, in our sortable form."""
    if not isinstance(value, str):
        raise BadInput(name, f"must be an ISO-8601 timestamp, got {value!r}")
    try:
        return iso(parse_time(value))
    except BadInput:
        raise BadInput(name, f"not an ISO-8601 timestamp: {value!r}") from None
    except OverflowError:  # a valid time whose UTC falls before year 1 or after 9999
        raise BadInput(name, f"{value!r} is outside years 1 to 9999 in UTC") from None


def _epoch(stamp: str | None) -> float | None:
    return None if stamp is None else parse_time(stamp).timestamp()


def validate_min_score(value) -> float | None:
    """A least relevance in [0, 1], or None for the configured one."""
    if value is None:
        return None
    score = validate_number(value, "min-score")
    if not 0.0 <= score <= 1.0:
        raise BadInput("min-score", f"must be from 0 to 1, got {value!r}")
    return score


