"""Shared rows as typed records, after python-tuf's signed classes: one frozen dataclass
per row kind, one way from a row and one way to a row.

`from_row` takes a row as any branch holds it: a column that a later migration added
and the row lacks (read from a branch not migrated yet) takes the field's default.
`to_row` always gives every column, so no write carries a row that lost one: rows of
one kind written together always have the same shape (the port refuses batches that
do not, store/port.py). No I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, TypeVar

from .memory import _field_names

R = TypeVar("R", bound="Record")


@dataclass(frozen=True)
class Record:
    """Base of the typed rows: fields are the table's columns, in any order."""

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        return _field_names(cls)

    @classmethod
    def from_row(cls: type[R], row: Mapping[str, Any]) -> R:
        """The record of a row read from its table; columns this code does not know are left out."""
        return cls(**{name: row[name] for name in _field_names(cls) if name in row})

    def to_row(self) -> dict[str, Any]:
        """Every column, always."""
        return {name: getattr(self, name) for name in _field_names(type(self))}

    def replace(self: R, **changes: Any) -> R:
        return dataclasses.replace(self, **changes)
