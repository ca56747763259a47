"""Object construction without the dataclass machinery, and JSON without a new
encoder a call, for the hot paths.

A pull turns some 10^5 rows into objects and copies the thousands it changes;
`dataclasses.replace`, `copy.copy` and `__init__` with defaults were most of
that time. These build the same objects from their `__dict__` directly.
"""

from __future__ import annotations

import json
from json import encoder as json_impl
from typing import Any, Callable, Mapping, TypeVar

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


def json_encoding(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """encoder.encode, by the one C encoder it would build anew for every call (a batch store
    encodes some 10^4 claims and envelopes), and without its check for circular references:
    the documents given it are trees. encoder.encode itself where there is no C encoder."""
    if json_impl.c_make_encoder is None or encoder.indent is not None:
        return encoder.encode
    strings = json_impl.encode_basestring_ascii if encoder.ensure_ascii else json_impl.encode_basestring
    chunks = json_impl.c_make_encoder(None, encoder.default, strings, None, encoder.key_separator,
                                      encoder.item_separator, encoder.sort_keys, encoder.skipkeys,
                                      encoder.allow_nan)
    return lambda value: "".join(chunks(value, 0))
