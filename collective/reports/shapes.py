"""The machinery of the typed shapes: the docs' written form of a shape (`shape_text`,
`documented`), where a value strays from one (`mismatches`), and the one path from a
result to JSON (`plain`, `to_json`) that the CLI's --json and the MCP tools both take.

A field's note (`Annotated[type, "note"]`) is printed beside its name in the docs. A
field marked NotRequired is one a compact answer leaves out (the MCP tools, unless asked
for detail): the docs list those after the rest, as "in full also"."""

from __future__ import annotations

import json
import textwrap
from typing import Annotated, Any, Callable, get_args, get_origin

from typing_extensions import NotRequired, Required, get_type_hints, is_typeddict


def _json_default(value: Any) -> Any:
    """A result object (StoreResult, Recalled, Commit, ...) by its documented shape; the rest as text."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else str(value)


def to_json(value: Any, *, indent: int | None = None) -> str:
    """A front-door result as JSON text: one line unless `indent`. A result object is
    written by its to_dict even where it is also a list (recall's hits)."""
    return json.dumps(_json_default(value) if hasattr(value, "to_dict") else value, indent=indent,
                      default=_json_default)


def plain(value: Any) -> Any:
    """A front-door result as JSON types only (what to_json writes, read back)."""
    return json.loads(to_json(value))


def _unwrapped(kind: Any) -> tuple[Any, str]:
    """The type under NotRequired, Annotated and Optional, with its note ("" when none)."""
    if get_origin(kind) in (NotRequired, Required):
        kind = get_args(kind)[0]
    note = ""
    if get_origin(kind) is Annotated:
        kind, note = get_args(kind)[0], get_args(kind)[1]
    inner = [a for a in get_args(kind) if a is not type(None)]
    if inner and type(None) in get_args(kind) and len(inner) == 1:
        kind = inner[0]
    return kind, note


def _fields(shape: type) -> dict[str, Any]:
    return get_type_hints(shape, include_extras=True)


def _written(name: str, kind: Any) -> str:
    kind, note = _unwrapped(kind)
    text = f'"{name}"'
    if is_typeddict(kind):
        text += ": " + shape_text(kind)
    elif get_origin(kind) is list and get_args(kind) and is_typeddict(get_args(kind)[0]):
        text += ": [" + shape_text(get_args(kind)[0]) + "]"
    return text + (f" ({note})" if note else "")


def shape_text(shape: type) -> str:
    """The shape as the docs write it: {"a", "b": {...}, "c": [{...}] (note)}, and the fields a
    compact answer leaves out after "in full also"."""
    fields = _fields(shape)
    optional = getattr(shape, "__optional_keys__", frozenset())
    parts = [_written(name, kind) for name, kind in fields.items() if name not in optional]
    extra = [_written(name, kind) for name, kind in fields.items() if name in optional]
    return "{" + ", ".join(parts) + ("; in full also " + ", ".join(extra) if extra else "") + "}"


def shape_lines(shape: type, *, lead: str = "JSON:", many: bool = False) -> list[str]:
    """The shape as the docs write it, after `lead`, wrapped (a list of them, `many`)."""
    written = f"[{shape_text(shape)}]" if many else shape_text(shape)
    return textwrap.wrap(f"{lead} {written}", width=88, subsequent_indent="  ", break_on_hyphens=False)


def documented(shape: type, *, lead: str = "JSON:", for_click: bool = True, many: bool = False) -> Callable:
    """A decorator: the function's docstring ends with the shape it returns, written from
    `shape` (a list of them, `many`; for click, after a \\b line: printed as written)."""
    def decorate(func: Callable) -> Callable:
        doc = func.__doc__ or ""
        body = [line for line in doc.splitlines()[1:] if line.strip()]
        indent = " " * min((len(line) - len(line.lstrip()) for line in body), default=4)
        lines = shape_lines(shape, lead=lead, many=many)
        keep = f"{indent}\b\n" if for_click else ""  # \b: click keeps the paragraph as written
        func.__doc__ = doc.rstrip() + f"\n\n{keep}" + "\n".join(indent + line for line in lines) + f"\n{indent}"
        return func
    return decorate


def mismatches(value: Any, shape: type, where: str = "") -> list[str]:
    """Where `value` strays from `shape`: keys missing or extra, in it and in the objects it
    holds that have shapes of their own ([] when it keeps to it). A field marked NotRequired
    may be missing."""
    if not isinstance(value, dict):
        return [f"{where or 'the value'} is {type(value).__name__}, not an object"]
    fields = _fields(shape)
    optional = getattr(shape, "__optional_keys__", frozenset())
    found = [f"{where}.{k} missing" for k in fields if k not in value and k not in optional]
    found += [f"{where}.{k} not in {shape.__name__}" for k in value if k not in fields]
    for name, kind in fields.items():
        kind, _ = _unwrapped(kind)
        held = value.get(name)
        if held is None:
            continue
        if is_typeddict(kind):
            found += mismatches(held, kind, f"{where}.{name}")
        elif get_origin(kind) is list and get_args(kind) and is_typeddict(get_args(kind)[0]):
            for i, item in enumerate(held):
                found += mismatches(item, get_args(kind)[0], f"{where}.{name}[{i}]")
    return found


def compact(value: dict, shape: type) -> dict:
    """`value` without the fields `shape` marks NotRequired (and so, within the objects it
    holds that have shapes of their own): what an answer that pays per token carries."""
    fields = _fields(shape)
    optional = getattr(shape, "__optional_keys__", frozenset())
    out = {}
    for name, held in value.items():
        if name in optional:
            continue
        kind, _ = _unwrapped(fields.get(name, Any))
        if is_typeddict(kind) and isinstance(held, dict):
            held = compact(held, kind)
        elif get_origin(kind) is list and get_args(kind) and is_typeddict(get_args(kind)[0]) and held:
            held = [compact(item, get_args(kind)[0]) for item in held]
        out[name] = held
    return out
