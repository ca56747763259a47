"""What the rule judge reads from one text (`Analysis`), and keeping it as bytes.

An analysis is kept per text in the local_analyses table (`collective.judge.cache`)
so a text is read once per machine; `analysis_version` says which code made it.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Quantity:
    dim: str  # "pressure", "length", ..., or "count:<noun>"
    lo: float  # interval in SI units
    hi: float
    key: frozenset  # attribute or counted-noun stems that say what is measured
    text: str  # as written, for reasons

    def overlaps(self, other: "Quantity") -> bool:
        return self.lo <= other.hi and other.lo <= self.hi


@dataclass(frozen=True, slots=True)
class Analysis:
    """What `RuleJudge.analyse` extracts from one text."""

    text: str
    content: frozenset  # content-word stems of the main clause
    subject: frozenset  # content stems before the main verb (no ids, persons, attributes)
    predicate: frozenset  # content stems after the main verb
    attributes: frozenset  # attribute nouns in the subject (pressure, battery...)
    ids: dict  # head -> frozenset of identifiers, subject position only
    all_ids: frozenset  # "head id" strings anywhere
    owners: frozenset  # possessive people before a noun: "Chen's suit"
    people: frozenset  # named people filling the claim
    roles: frozenset  # crew roles filling the claim
    places: tuple  # predicate locations, each a frozenset of stems
    subject_places: tuple  # locations that modify the subject
    quantities: tuple
    times: frozenset  # minutes after midnight (ambiguous ones as both readings)
    time_text: tuple
    days: dict  # kind ("weekday", "sol", "date", "relative") -> frozenset
    axes: dict  # axis -> frozenset of poles (+1/-1)
    axis_words: dict  # axis -> word as written, for reasons
    positive: frozenset  # predicate stems asserted
    negated: frozenset  # stems under negation (odd count)
    hedged: bool
    qualified: bool
    retracts: bool
    personal: bool  # the claim is a condition of the person named (cold, asleep, weight)
    words: tuple = ()  # the text's words as written (lower case, no stopwords), for alignment


EMPTY = frozenset()  # the empty set of every analysis (reader.py); marshal keeps it one object per blob
_ANALYSIS_FIELDS = tuple(f.name for f in fields(Analysis))
_QUANTITIES_AT = _ANALYSIS_FIELDS.index("quantities")


def dump_analysis(a: Analysis) -> bytes:
    """An analysis as bytes (marshal: loading one costs a seventh of analysing again)."""
    values = [getattr(a, name) for name in _ANALYSIS_FIELDS]
    values[_QUANTITIES_AT] = tuple((q.dim, q.lo, q.hi, q.key, q.text) for q in a.quantities)
    return marshal.dumps(tuple(values))


def load_analysis(blob: bytes) -> Analysis:
    """The inverse of dump_analysis; ValueError when the bytes are not one."""
    try:
        values = list(marshal.loads(blob))
        values[_QUANTITIES_AT] = tuple(Quantity(*q) for q in values[_QUANTITIES_AT])
        return Analysis(*values)
    except (EOFError, TypeError, IndexError) as e:
        raise ValueError(f"not a stored analysis: {e}") from e


@lru_cache(maxsize=1)
def analysis_version() -> str:
    """Names the code that made an analysis: a hash of every source file of the judge
    package (sorted by path, each with its path, so a change to any reader, table or rule
    counts), and the Python version (marshal's format may change with it). A stored
    analysis with another version is stale."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py"), key=lambda p: p.relative_to(package).as_posix()):
        digest.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes())
    return f"{digest.hexdigest()[:16]}-py{sys.version_info[0]}.{sys.version_info[1]}"
