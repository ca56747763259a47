"""The one cmem.toml loader: a settings class declares its keys as dataclass fields made
by `setting()` (default, one-line meaning, kind, bounds, TOML table), and `settings_from`
builds it from the parsed file, checking every key; a problem is one line naming the
table and the key (BadInput, exit 2). scripts/config_reference.py documents the same
fields in docs/reference/configuration.md.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, TypeVar

from ..errors import BadInput

SOURCE = "cmem.toml"
T = TypeVar("T")


@dataclass(frozen=True)
class Key:
    """How one setting is read: its place in cmem.toml, its kind and bounds."""

    doc: str                               # one line: what it sets
    kind: Any                              # float, int, bool, str; (item,): a list; dict: a table of floats
    table: str | None = None               # None: the class's TABLE (None there too: the top of the file)
    key: str | None = None                 # the TOML key, when it is not the field's name
    at_least: float | None = None
    at_most: float | None = None
    above: float | None = None             # exclusive lower bound
    unit: str = ""                         # in errors: "more than 0 days"
    one_or_many: bool = False              # a list that may be given as one item


def setting(default: Any, doc: str, *, kind: Any = None, **how: Any) -> Any:
    """A dataclass field read from cmem.toml (see Key); `kind` defaults to the default's."""
    if kind is None:
        kind = (type(default[0]),) if isinstance(default, tuple) else type(default)
    meta = {"setting": Key(doc, kind, **how)}
    if isinstance(default, dict):
        return dataclasses.field(default_factory=lambda: dict(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def keys(cls: type) -> Iterator[tuple[str | None, str, dataclasses.Field, Key]]:
    """(table, TOML key, field, Key) of every setting of a settings class, in field order."""
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("setting")
        if spec is not None:
            yield spec.table or getattr(cls, "TABLE", None), spec.key or f.name, f, spec


def settings_from(cls: type[T], config: Mapping[str, Any]) -> T:
    """`cls` from a parsed cmem.toml: its keys where given, defaults elsewhere."""
    values: dict[str, Any] = {}
    known: dict[str | None, set[str]] = {}
    for table, key, f, spec in keys(cls):
        known.setdefault(table, set()).add(key)
        section = config if table is None else table_of(config, table)
        if key in section:
            where = key if table is None else f"[{table}] {key}"
            values[f.name] = _checked(where, section[key], spec, f.default_factory)
    for table in known.keys() - {None}:  # the top of the file holds the tables too: not checked here
        unknown = sorted(set(table_of(config, table)) - known[table])
        if unknown:
            raise BadInput(SOURCE, f"[{table}] has unknown setting(s) {', '.join(unknown)}")
    return cls(**values)


def table_of(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """A table of cmem.toml ({} when absent); BadInput when it is not a table."""
    table = config.get(name, {})
    if not isinstance(table, dict):
        raise BadInput(SOURCE, f"[{name}] must be a table, got {_shown(table)}")
    return table


def _checked(where: str, value: Any, spec: Key, default_factory: Any) -> Any:
    if spec.kind is dict:  # a table of numbers over the default one: [trust] half_lives
        if not isinstance(value, dict):
            raise BadInput(SOURCE, f"{where} must be a table, got {_shown(value)}")
        given = {name: _bounded(f"{where}.{name}", checked(f"{where}.{name}", v, float), spec)
                 for name, v in value.items()}
        return {**default_factory(), **given}
    if isinstance(spec.kind, tuple):
        if spec.one_or_many and not isinstance(value, list):
            value = [value]
        if not isinstance(value, list):
            raise BadInput(SOURCE, f"{where} must be a list, got {_shown(value)}")
        return tuple(_bounded(where, checked(where, item, spec.kind[0]), spec) for item in value)
    return _bounded(where, checked(where, value, spec.kind), spec)


_KIND_NAMES = {float: "a finite number", int: "a whole number", bool: "true or false", str: "text"}


def checked(where: str, value: Any, kind: type) -> Any:
    """`value` if it is of `kind` (a float: finite, an int accepted), else BadInput naming `where`."""
    if kind is float:
        fits = isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value)
    else:
        fits = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not fits:
        raise BadInput(SOURCE, f"{where} must be {_KIND_NAMES.get(kind, kind.__name__)}, got {_shown(value)}")
    return float(value) if kind is float else value


def _bounded(where: str, value: Any, spec: Key) -> Any:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return value
    low, high, above = spec.at_least, spec.at_most, spec.above
    if low is not None and high is not None and not low <= value <= high:
        wanted = f"from {_number(low)} to {_number(high)}"
    elif low is not None and high is None and value < low:
        wanted = f"at least {_number(low)}"
    elif high is not None and low is None and value > high:
        wanted = f"at most {_number(high)}"
    elif above is not None and value <= above:
        wanted = f"more than {_number(above)}"
    else:
        return value
    unit = f" {spec.unit}" if spec.unit else ""
    raise BadInput(SOURCE, f"{where} must be {wanted}{unit}, got {_number(value)}")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _shown(value: Any) -> str:
    return repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer past a float's range (TOML integers have no bound here)
        return False
