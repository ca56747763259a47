"""The data: memories and their validation, ids, times. No I/O."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import numbers
import os
import re
import time
import unicodedata
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import BadInput
from ..runtime import fast
from .enums import Category
from .refs import ref_part_problem
from .vectors import blob_to_vector, vector_to_blob

CATEGORIES = tuple(Category)
STANCES = {"affirm": 0.0, "uncertain": math.pi / 2, "deny": math.pi}
AGENT_ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
MAX_CONTENT_BYTES = 32 * 1024
SUMMARY_CHARS = 160
DEFAULT_AMPLITUDE = 0.5


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def iso(ts: datetime) -> str:
    """UTC with microseconds, sortable as text. Not strftime: its %Y drops the zeros of a year
    before 1000 ('999-12-31...'), which sorts wrong and no longer parses."""
    return ts.astimezone(timezone.utc).isoformat(timespec="microseconds")[:-6] + "Z"


def parse_time(text: str) -> datetime:
    """Parse our own timestamps and the common ISO forms people type."""
    value = text.strip().replace("Z", "+00:00")
    try:
        ts = datetime.fromisoformat(value)
    except ValueError as e:
        raise BadInput("time", f"not an ISO-8601 timestamp: {text!r}") from e
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


_last_v7 = 0


def uuid7() -> str:
    """Time-ordered UUID (RFC 9562 v7), monotonic within this process."""
    return uuid7s(1)[0]


def uuid7s(count: int) -> list[str]:
    """`count` ids as uuid7 makes them, strictly increasing, for a batch: one clock read
    and one call for the random bits."""
    global _last_v7
    ms = time.time_ns() // 1_000_000
    random_bits = os.urandom(10 * count)
    last, ids = _last_v7, []
    for start in range(0, 10 * count, 10):
        rand = int.from_bytes(random_bits[start:start + 10], "big")
        value = (ms << 80) | (0x7 << 76) | ((rand >> 64) & 0xFFF) << 64 | (0b10 << 62) | (rand & ((1 << 62) - 1))
        if value <= last:  # same millisecond: keep ids strictly increasing
            value = last + 1
        last = value
        h = f"{value:032x}"  # the canonical 8-4-4-4-12 form, without building a uuid.UUID
        ids.append(f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}")
    _last_v7 = last
    return ids


def text_problem(value: str) -> str | None:
    """What makes `value` unfit to store or look up as text, or None: a NUL character, or a
    lone surrogate (how Python carries bytes that are not UTF-8 in command-line arguments)."""
    if "\x00" in value:
        return f"contains a NUL character at position {value.index(chr(0))}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        char = ord(value[e.start])
        if 0xDC80 <= char <= 0xDCFF:  # surrogateescape: an undecodable byte
            return f"not valid UTF-8 (byte 0x{char - 0xDC00:02x} at position {e.start})"
        return f"not valid text (a lone surrogate U+{char:04X} at position {e.start})"
    return None


def validate_text(value: Any, field_name: str) -> str:
    """`value` as text: a str that is valid UTF-8 and holds no NUL."""
    if not isinstance(value, str):
        raise BadInput(field_name, f"must be text, got {type(value).__name__}")
    problem = text_problem(value)
    if problem:
        raise BadInput(field_name, problem)
    return value


def validate_number(value: Any, field_name: str) -> float:
    """A real number (int or float; bool is not one, nor is text)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise BadInput(field_name, f"must be a number, got {value!r}")
    try:
        return float(value)
    except OverflowError:  # an int past a float's range: its repr can run to thousands of digits
        raise BadInput(field_name, "must be a number, got one too large for a float") from None


def validate_count(value: Any, field_name: str, *, maximum: int) -> int:
    """A whole number in [1, maximum]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= maximum:
        raise BadInput(field_name, f"must be a whole number from 1 to {maximum}, got {value!r}")
    return int(value)


def validate_ref(value: Any, field_name: str = "as-of") -> str | None:
    """A ref as text (a commit hash, branch, tag or timestamp, resolved later), or None."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadInput(field_name, f"must be a commit, branch or timestamp, got {value!r}")
    return validate_text(value, field_name)


def validate_agent_id(agent_id: str | None, field_name: str = "agent") -> str:
    if not agent_id or not isinstance(agent_id, str) or not AGENT_ID_RE.fullmatch(agent_id):
        raise BadInput(field_name, f"{agent_id!r} is not a valid agent id (expected [a-z0-9][a-z0-9._-]{{0,63}})")
    problem = ref_part_problem(agent_id)  # the id names its branches: <id>/working, <id>/dream/...
    if problem:
        raise BadInput(field_name, f"{agent_id!r} is not a valid agent id: {problem}")
    return agent_id


def validate_note(note: Any, field_name: str = "note") -> str:
    """A person's reason for a decision: text that says something, no longer than a memory
    may be (it is signed, shared and shown with every listing of the decision)."""
    if note is None or not validate_text(note, field_name).strip():
        raise BadInput(field_name, "say why: a decision needs a note")
    if len(note.encode("utf-8")) > MAX_CONTENT_BYTES:
        raise BadInput(field_name, f"longer than {MAX_CONTENT_BYTES} bytes")
    if not _visible(note):  # zero-width spaces or control characters only: it says nothing
        raise BadInput(field_name, "say why: a decision needs a note (it holds no visible character)")
    return note


def validate_content(content: Any, field_name: str = "content") -> str:
    if not isinstance(content, str) or not content.strip():
        raise BadInput(field_name, "must be non-empty text")
    validate_text(content, field_name)
    if not _visible(content):  # zero-width spaces or control characters only: nothing to recall
        raise BadInput(field_name, "must be non-empty text (it holds no visible character)")
    if len(content.encode("utf-8")) > MAX_CONTENT_BYTES:
        raise BadInput(field_name, f"longer than {MAX_CONTENT_BYTES} bytes")
    return content.strip()


def _visible(text: str) -> bool:
    """Whether any character is a letter, mark, number, punctuation or symbol (most texts: the first)."""
    return any(unicodedata.category(c)[0] in "LMNPS" for c in text)


def validate_category(category: str | None) -> str:
    category = category or "knowledge"
    if not isinstance(category, str) or category not in CATEGORIES:
        raise BadInput("category", f"unknown category {category!r} (one of {', '.join(CATEGORIES)})")
    return category


def validate_amplitude(value: Any, field_name: str = "importance") -> float:
    amplitude = validate_number(value, field_name)
    if not (0.0 < amplitude <= 1.0):
        raise BadInput(field_name, f"must be in (0, 1], got {value!r}")
    return amplitude


def shown_amplitude(amplitude: float, digits: int = 6) -> float:
    """An amplitude as results show it: `digits` decimals, or as many significant digits
    where those would show a positive amplitude (importance 1e-7) as 0, no weight at all."""
    rounded = round(float(amplitude), digits)
    return rounded if rounded or not amplitude else float(f"{float(amplitude):.{digits}g}")


def validate_phase(phase: Any) -> float:
    value = validate_number(phase, "phase")
    if not math.isfinite(value):
        raise BadInput("phase", f"must be a finite number of radians, got {phase!r}")
    value %= 2 * math.pi
    return value if value < 2 * math.pi else 0.0  # -1e-17 % 2pi rounds to 2pi


def validate_stance(stance: str) -> float:
    if not isinstance(stance, str) or stance not in STANCES:
        raise BadInput("stance", f"unknown stance {stance!r} (one of {', '.join(STANCES)})")
    return STANCES[stance]


def validate_tags(tags: Iterable[str] | None) -> list[str]:
    if isinstance(tags, (str, bytes)) or not isinstance(tags, (list, tuple, type(None))):
        raise BadInput("tags", f"must be a list of strings, got {tags!r}")
    out: list[str] = []
    for tag in tags or ():
        if not isinstance(tag, str) or not tag.strip() or len(tag) > 64:
            raise BadInput("tag", f"tags are non-empty text of at most 64 characters, got {tag!r}")
        validate_text(tag, "tag")
        if not _visible(tag):  # zero-width spaces or control characters only: no tag anyone can type
            raise BadInput("tag", f"tags are non-empty text (it holds no visible character), got {tag!r}")
        if tag.strip() not in out:
            out.append(tag.strip())
    return out


def row_tags(row: Mapping) -> list[str]:
    """A memory row's tags: JSON text as stored, or a list already."""
    tags = row.get("tags") or []
    return json.loads(tags) if isinstance(tags, (str, bytes)) else list(tags)


_ABBREVIATIONS = frozenset("dr mr mrs ms prof st no vs approx e.g i.e etc cf fig eq sgt lt cmdr capt".split())


def summarise(content: str) -> str:
    """First sentence, at most SUMMARY_CHARS characters."""
    text = " ".join(content.split())
    first = text
    for match in re.finditer(r"(?<=[.!?])\s", text):
        word = text[: match.start()].rsplit(" ", 1)[-1].rstrip(".!?").lower()
        if word in _ABBREVIATIONS or len(word) == 1:
            continue  # "Dr. Okafor", "approx. 3", "J. Smith": not a sentence end
        first = text[: match.start()]
        break
    if len(first) > SUMMARY_CHARS:
        first = first[: SUMMARY_CHARS - 1].rstrip() + "…"
    return first


def content_hash(content: str) -> str:
    """Identity of a memory's text: whitespace and case folded, so re-stores dedupe."""
    canonical = " ".join(content.split()).casefold()
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# json.dumps(doc, sort_keys=True, separators=(",", ":")), without building an encoder a call
_CANONICAL_JSON = fast.json_encoding(json.JSONEncoder(sort_keys=True, separators=(",", ":")))


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@dataclass
class Memory:
    """One row of `memories`. JSON columns are Python values here."""

    id: str
    content: str
    summary: str
    vector: np.ndarray = field(repr=False)
    dim: int
    model_version: str
    content_hash: str
    amplitude: float
    phase: float
    category: str
    origin_agent: str
    created_at: str
    updated_at: str
    stance: str | None = None  # explicit writer stance, or None when estimated from text
    tags: list[str] = field(default_factory=list)
    layer: int = 0
    sync_version: int = 1
    merge_history: list[dict] = field(default_factory=list)
    last_consolidated_at: str | None = None
    disputed: bool = False
    hallucinated: bool = False
    parents: list[str] = field(default_factory=list)
    absorbed_into: str | None = None
    retracted: bool = False
    signature: str = ""
    refuted_by: str | None = None   # the dispute or corrected memory whose verdict refuted it
    valid_until: str | None = None  # when that verdict was given

    JSON_COLUMNS = ("tags", "merge_history", "parents")
    # what `claim` signs (the content by its hash); the other columns are each holder's own state
    CLAIM_COLUMNS = ("id", "origin_agent", "content_hash", "model_version", "category", "stance", "tags", "parents",
                     "created_at", "retracted")
    BOOL_COLUMNS = ("disputed", "hallucinated", "retracted")

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The columns of `memories` a row of this class fills (as Record.columns)."""
        return _field_names(cls)

    def to_row(self) -> dict:
        values = self.__dict__
        row = {name: values[name] for name in _field_names(type(self))}
        row["vector"] = vector_to_blob(self.vector)
        for name in self.JSON_COLUMNS:
            row[name] = json.dumps(row[name], sort_keys=True) if row[name] else "[]"  # most rows: a pull writes 10^4
        for name in self.BOOL_COLUMNS:
            row[name] = int(row[name])
        return row

    @classmethod
    def from_row(cls, row: dict) -> "Memory":
        names = _field_names(cls)
        values = {name: row[name] for name in names if name in row}
        values["vector"] = blob_to_vector(row["vector"])
        for name in cls.JSON_COLUMNS:
            value = values.get(name)
            if isinstance(value, (str, bytes)):
                values[name] = [] if value == "[]" else json.loads(value)  # most rows: a pull reads 10^5
        for name in cls.BOOL_COLUMNS:
            values[name] = bool(values.get(name))
        if len(values) < len(names):
            return cls(**values)  # a partial row: the defaults fill in
        return fast.from_fields(cls, values)  # a whole row, the common case: no defaults to apply

    def copy(self) -> "Memory":
        """A copy whose lists may change without touching this one. Vectors are never
        changed in place (a merge assigns new ones), so they are shared."""
        out = fast.shallow_copy(self)
        out.tags, out.parents = list(self.tags), list(self.parents)
        out.merge_history = [dict(h) for h in self.merge_history]
        return out

    def claim(self, *, hashed: str | None = None) -> bytes:
        """The signed part: what the origin asserted. Amplitude, phase, vector, flags
        and links are each holder's own state and change with merges and dreams
        (a constructive merge blends the absorber's vector, so signing the vector
        would make every absorber's signature fail at its peers). `hashed`: the
        content's hash where the caller just computed it from this content."""
        return claim_of(self.id, self.origin_agent, hashed or content_hash(self.content), self.model_version,
                        self.category, self.stance, self.tags, self.parents, self.created_at, self.retracted)

    def to_dict(self, *, with_vector: bool = False) -> dict:
        """The documented JSON shape of a memory."""
        out = {
            "id": self.id,
            "content": self.content,
            "summary": self.summary,
            "category": self.category,
            "tags": list(self.tags),
            "amplitude": shown_amplitude(self.amplitude),
            "phase": round(self.phase, 6),
            "stance": self.stance,
            "origin_agent": self.origin_agent,
            "model_version": self.model_version,
            "layer": self.layer,
            "disputed": self.disputed,
            "hallucinated": self.hallucinated,
            "retracted": self.retracted,
            "absorbed_into": self.absorbed_into,
            "refuted_by": self.refuted_by,
            "valid_until": self.valid_until,
            "parents": list(self.parents),
            "merge_history": list(self.merge_history),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        if with_vector:
            out["vector"] = [float(x) for x in self.vector]
        return out


def claim_of(memory_id: str, origin_agent: str, hashed: str, model_version: str, category: str, stance: str | None,
             tags: Sequence[str], parents: Sequence[str], created_at: str, retracted: bool) -> bytes:
    """Memory.claim of a memory with these fields (a batch store signs its new memories'
    claims while it makes them)."""
    doc = {
        "id": memory_id,
        "origin_agent": origin_agent,
        "content_hash": hashed,
        "model_version": model_version,
        "category": category,
        "stance": stance,
        "tags": sorted(tags),
        "parents": list(parents),
        "created_at": created_at,
        "retracted": bool(retracted),
    }
    return _CANONICAL_JSON(doc).encode("utf-8")
