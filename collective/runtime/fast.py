"""Object construction without the dataclass machinery, for the hot paths.

A pull turns some 10^5 rows into objects and copies the thousands it changes;
`dataclasses.replace`, `copy.copy` and `__init__` with defaults were most of
that time. These build the same objects from their `__dict__` directly.
"""

from __future__ import annotations

from typing import Any, Mapping, TypeVar

T = TypeVar("T")


def shallow_copy(obj: T) -> T:
    """What copy.copy makes of a plain (no __slots__) object, at a third of its cost."""
    out = object.__new__(type(obj))
    out.__dict__.update(obj.__dict__)
    return out


def from_fields(cls: type[T], values: Mapping[str, Any]) -> T:
    """An instance holding exactly `values`: for a dataclass whose every field is given."""
    obj = object.__new__(cls)
    obj.__dict__ = dict(values) if not isinstance(values, dict) else values
    return obj
