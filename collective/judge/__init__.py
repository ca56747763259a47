"""Pairwise judge: do two memories agree, contradict, partly agree, or not meet?

Embeddings decide "same topic" but cannot see negation, antonyms, other
numbers, other days or other people (DESIGN.md, "Phase"). The judge reads
the two texts and says which of four relations holds; the merge turns the
verdict into a phase difference (0, pi, pi/2) on top of the writers'
stances.

The built-in `RuleJudge` is pure and offline. It works in two steps:

1. `analyse(text)` extracts slots from one text (cached): object identities
   ("rover 5", "module C", "east array", "Chen's ..."), numbers with units
   converted to SI, clock times, days/dates/sols, places, people and roles,
   state words on antonym axes (open/closed, running/shut down...) with
   negation scope, hedges, qualifiers and retraction words.
2. `judge(a, b, similarity)` compares the slots of two analysed texts, gated
   by the caller's cosine similarity:

   - cosine below `CANDIDATE_FLOOR`: independent;
   - the same kind of object with different identities ("rover 5" vs
     "rover 3", "Chen's" vs "Patel's", "staging" vs "production"), the
     same statement about different subjects ("telemetry service" vs
     "scheduler service"), or two people with the same personal condition
     ("Greta has a cold" / "Ito has a cold"): independent;
   - one text retracts what the other says: destructive;
   - one text hedges what the other states: partial;
   - any slot clashes (negation, antonym, number, time, day, place, person,
     state): destructive;
   - one text restricts the other's claim (except, only, mostly...): partial;
   - same object, nothing in common asserted: partial (another attribute);
   - otherwise constructive, or independent when the topic is not shared.

Any other judge (an NLI model, an LLM callback) can replace it through
`CallbackJudge`; the merge only sees the `Judge` protocol.
"""

from __future__ import annotations

import hashlib
import marshal
import math
import re
import sys
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Callable, Protocol, Sequence, runtime_checkable

from . import lexicon as L
from ..errors import CollectiveError

RELATIONS = ("constructive", "destructive", "partial", "independent")

#: Cosine below which the rule judge always answers "independent". Callers
#: fetch ANN candidates down to this floor (loose paraphrases and "same
#: object, other attribute" pairs sit between it and the merge's 0.6).
CANDIDATE_FLOOR = 0.30

# Calibrated on the development set (tests/data/judge_dev.jsonl).
TOPIC_COSINE = 0.55  # same topic on cosine alone, without a shared object
PARAPHRASE_COSINE = 0.62  # same object, nothing shared asserted: paraphrase above, attribute below
SUBSTITUTION_COSINE = 0.80  # different subject words but a paraphrase nonetheless

_PHASE = {"constructive": 0.0, "destructive": math.pi, "partial": math.pi / 2, "independent": None}


class JudgeOutputError(CollectiveError, ValueError):
    """A plug-in judge returned something that is not a valid verdict."""


@dataclass(frozen=True)
class Verdict:
    relation: str
    confidence: float
    reason: str
    matched: tuple[str, ...] = ()
    clashed: tuple[str, ...] = ()

    @property
    def phase_difference(self) -> float | None:
        """0 for constructive, pi for destructive, pi/2 for partial, None for independent."""
        return _PHASE[self.relation]

    def to_dict(self) -> dict:
        return {
            "relation": self.relation,
            "confidence": self.confidence,
            "reason": self.reason,
            "matched": list(self.matched),
            "clashed": list(self.clashed),
            "phase_difference": self.phase_difference,
        }


@runtime_checkable
class Judge(Protocol):
    def judge(self, a: str, b: str, similarity: float) -> Verdict: ...


# ------------------------------------------------------------ analysis ---


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
    """Names the code that made an analysis: a hash of the judge's source and its
    lexicon, and the Python version (marshal's format may change with it). A stored
    analysis with another version is stale."""
    digest = hashlib.sha256()
    for module in (sys.modules[__name__], L):
        digest.update(Path(module.__file__).read_bytes())
    return f"{digest.hexdigest()[:16]}-py{sys.version_info[0]}.{sys.version_info[1]}"


_CACHE_LIMIT = 200_000  # word caches are cleared when they grow past this


def _stem(word: str, _cache: dict = {}) -> str:  # noqa: B006 - deliberate cache
    s = _cache.get(word)
    if s is not None:
        return s
    r = L.IRREGULAR_STEMS.get(word)
    if r is None:
        r = word.replace("iz", "is")
        if len(r) > 4 and r.endswith("ies"):
            r = r[:-3] + "y"
        elif len(r) > 4 and r.endswith("ied"):
            r = r[:-3] + "y"
        elif r.endswith("sses"):
            r = r[:-2]
        elif len(r) > 5 and r.endswith("ing"):
            r = r[:-3]
            if len(r) > 2 and r[-1] == r[-2] and r[-1] not in "lsz":
                r = r[:-1]
        elif len(r) > 4 and r.endswith("ed"):
            r = r[:-2]
            if len(r) > 2 and r[-1] == r[-2] and r[-1] not in "lsz":
                r = r[:-1]
        elif len(r) > 4 and (r.endswith(("ches", "shes", "xes", "zes"))):
            r = r[:-2]
        elif len(r) > 3 and r.endswith("s") and not r.endswith(("ss", "us", "is")):
            r = r[:-1]
        if len(r) > 3 and r.endswith("e"):
            r = r[:-1]
        r = L.IRREGULAR_STEMS.get(r, r)
    if len(_cache) > _CACHE_LIMIT:
        _cache.clear()
    _cache[word] = r
    return r


# --- normalisation and tokens

_QUOTES = re.compile(r"[’‘`´]")
_DASHES = re.compile(r"[−–—]")
_AM_PM_DOTS = re.compile(r"\b([ap])\.\s?m\.(?=\W|$)", re.I)
_APOSTROPHES = (  # applied only to texts with an apostrophe; the needle is in every match, lower-cased
    (re.compile(r"\bo'clock\b", re.I), " oclock", "o'clock"),
    (re.compile(r"\bwon't\b", re.I), "will not", "won't"),
    (re.compile(r"\bshan't\b", re.I), "shall not", "shan't"),
    (re.compile(r"\bcan't\b", re.I), "can not", "can't"),
    (re.compile(r"n't\b", re.I), " not", "n't"),
    (re.compile(r"\b(it|that|there|here|what|who|where|he|she|everything|nothing)'s\b", re.I), r"\1 is", "'s"),
    (re.compile(r"'re\b", re.I), " are", "'re"),
    (re.compile(r"'ve\b", re.I), " have", "'ve"),
    (re.compile(r"'ll\b", re.I), " will", "'ll"),
    (re.compile(r"(\w)'s\b"), r"\1 's", "'s"),
)
_CANNOT = re.compile(r"\bcan(?:not|t)\b", re.I)
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\b")
_SCI = re.compile(r"(\d)\s*(?:x|×)\s*10(?:\^|\*\*)(-?\d+)")


def _normalise(text: str) -> str:
    t = text
    if "’" in t or "‘" in t or "`" in t or "´" in t:
        t = _QUOTES.sub("'", t)
    if "−" in t or "–" in t or "—" in t:
        t = _DASHES.sub("-", t)
    if "m." in t or "M." in t:
        t = _AM_PM_DOTS.sub(lambda m: m.group(1).lower() + "m ", t)
    # The case-insensitive regexes are slow. On an ASCII text, where they match the
    # lower-cased text holds their needle; most texts lack it and skip them.
    if "'" in t:
        lowered = t.lower() if t.isascii() else None  # (no replacement adds a needle)
        for rx, rep, needle in _APOSTROPHES:
            if lowered is None or needle in lowered:
                t = rx.sub(rep, t)
    if ("an" in t or "AN" in t) and (not t.isascii() or "can" in t.lower()):
        t = _CANNOT.sub("can not", t)
    if "-" in t:
        t = _ISO_DATE.sub(lambda m: f" __date_{int(m.group(2))}_{int(m.group(3))} ", t)
    if "10^" in t or "10**" in t:
        t = _SCI.sub(lambda m: m.group(1) + "e" + m.group(2), t)
    if t.isascii() and not _has_synonym(t.lower()):
        return t
    return _SYNONYMS.sub(lambda m: _SYNONYM_MAP[m.group(0).lower()], t)


def _has_synonym(low: str) -> bool:
    """Whether a lower-cased text holds a synonym phrase; the phrases are lower-case
    ASCII, so on an ASCII text `_SYNONYMS` can only match where this finds one."""
    for phrase in _SYNONYM_MAP:
        if phrase in low:
            return True
    return False


_TOKEN = re.compile(
    r"__date_\d+_\d+"
    r"|\d{1,2}:\d{2}"
    r"|(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    r"|(?<![\w.])-?\d+(?:\.\d+)?"
    r"|[^\W\d_][^\W_]*(?:[-'][^\W_]+)*"
    r"|'s\b|s'(?=\s)"
    r"|[%°³/~:;,.!?()+\-]"
)
_SYNONYM_MAP = {k: v for k, v in L.SYNONYM_PHRASES.items()}
_SYNONYMS = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in sorted(_SYNONYM_MAP, key=len, reverse=True)) + r")\b", re.I)
assert all(k.isascii() and k.islower() for k in _SYNONYM_MAP)  # _has_synonym relies on it
_SENT_END = frozenset({".", "!", "?", ";", ":"})
_PUNCT = frozenset({".", "!", "?", ";", ":", ",", "(", ")"})
_CONJ_BREAK = frozenset({"and", "but", "or", "because", "which", "so", "while", "although",
                         "though", "whereas", "however", "after", "before", "when", "since",
                         "until", "as", "if", "unless", "then", "nor"})
_SCOPE_STOP = frozenset({"in", "at", "on", "during", "after", "before", "since", "until",
                         "by", "from", "for", "because", "while", "when", "near", "with",
                         "inside", "outside", "into", "over", "under", "behind", "beside",
                         "through", "via", "than", "to_the"})
_DETERMINERS = frozenset({"the", "a", "an", "its", "their", "our", "his", "her", "my", "your",
                          "this", "that", "these", "those", "each", "every", "all", "both",
                          "some", "any"})
_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "being", "stays", "stay",
                      "stayed", "remains", "remain", "remained", "went", "goes", "go", "came",
                      "comes", "turned", "switched", "left", "still", "now", "back", "seems",
                      "looks", "appears"})
_PARTICLE_STATES = {"on": ("power", 1), "off": ("power", -1), "up": ("power", 1),
                    "down": ("power", -1), "live": ("deploy", 1), "green": ("outcome", 1),
                    "red": ("outcome", -1)}
_PARTICLE_FOLLOW = frozenset({"again", "now", "since", "for", "at", "today", "tonight",
                              "yesterday", "and", "but", "already", "too", "as", "after",
                              "until", "this", "in", "on"})
_AMPM = frozenset({"am", "pm"})
_LABEL_WORDS = frozenset({"retraction", "correction", "update", "note", "unconfirmed",
                          "confirmed", "fyi", "warning", "alert", "status", "retracted",
                          "withdrawn", "erratum", "log", "report", "reminder", "ps", "nb",
                          "info", "heads-up", "important"})
_ORDINAL_SUFFIX = frozenset({"st", "nd", "rd", "th"})


_NUMBER_FIRST = frozenset(k.split()[0] for k in L.NUMBER_WORDS)


def _build_phrases() -> dict:
    phrases: dict[str, dict[str, list[tuple[list[str], str]]]] = {}  # first word -> second word -> longest first
    sources = (L.NEGATOR_PHRASES + L.HEDGE_PHRASES + L.QUALIFIER_PHRASES + L.STATE_PHRASES
               + L.ROLE_PHRASES + tuple(k for k in L.RELATIVE_DAYS if " " in k)
               + L.LOWER_BOUND_PHRASES + L.UPPER_BOUND_PHRASES
               + ("cubic metres", "cubic metre", "cubic meters", "cubic meter", "degrees c",
                  "degrees f", "degrees celsius", "degrees fahrenheit", "per cent",
                  "next to", "beats per minute", "clear of"))
    for p in sources:
        words = p.split()
        if len(words) < 2:
            continue
        phrases.setdefault(words[0], {}).setdefault(words[1], []).append((words, "_".join(words)))
    for by_second in phrases.values():
        for v in by_second.values():
            v.sort(key=lambda t: -len(t[0]))
    return phrases


_PHRASES = _build_phrases()
_NEG_PHRASE_TOKENS = frozenset(p.replace(" ", "_") for p in L.NEGATOR_PHRASES) | {"clear_of"}
_HEDGE_PHRASE_TOKENS = frozenset(p.replace(" ", "_") for p in L.HEDGE_PHRASES)
_QUAL_PHRASE_TOKENS = frozenset(p.replace(" ", "_") for p in L.QUALIFIER_PHRASES)
_LOWER_TOKENS = L.LOWER_BOUNDS | frozenset(p.replace(" ", "_") for p in L.LOWER_BOUND_PHRASES)
_UPPER_TOKENS = L.UPPER_BOUNDS | frozenset(p.replace(" ", "_") for p in L.UPPER_BOUND_PHRASES)
_UNIT_ALIASES = {"cubic_metres": "m3", "cubic_metre": "m3", "cubic_meters": "m3",
                 "cubic_meter": "m3", "degrees_c": "°c", "degrees_f": "°f",
                 "degrees_celsius": "°c", "degrees_fahrenheit": "°f", "per_cent": "%",
                 "beats_per_minute": "bpm", "celsius": "°c", "fahrenheit": "°f"}

_STATE_INDEX: dict[str, tuple[str, int]] = {}
for _axis, (_pos, _neg) in L.STATE_AXES.items():
    for _w in _pos:
        _STATE_INDEX.setdefault(_w, (_axis, 1))
    for _w in _neg:
        _STATE_INDEX.setdefault(_w, (_axis, -1))

_RETRACT_STRONG = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in L.RETRACTION_STRONG) + r")(?!\w)")
_RETRACT_WEAK = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in L.RETRACTION_WEAK) + r")\b")
_RETRACT_IMPERATIVE = re.compile(r"(?:please |kindly )?(?:ignore|disregard|delete|drop|forget) (?:the|my|that|this|our|what|about|any|all)\b")
_WORD = re.compile(r"\w+")
_STRONG_KEYS = frozenset(max(_WORD.findall(p), key=len) for p in L.RETRACTION_STRONG)  # the rarest word of each
_WEAK_KEYS = frozenset(max(_WORD.findall(p), key=len) for p in L.RETRACTION_WEAK)
_IMPERATIVE_FIRST = frozenset({"please", "kindly", "ignore", "disregard", "delete", "drop", "forget"})  # words _RETRACT_IMPERATIVE can start with
_RETRACT_NOT_AFTER = re.compile(r"\b(?:nothing|no|not|without)\s+(?:\w+\s+)?(?:wrong|errors?|mistakes?|glitch\w*)\b")

_KNOWN_WORDS = (frozenset(L.STOPWORDS) | L.ID_NOUNS | L.PLACE_NOUNS | L.ATTRIBUTE_NOUNS
                | frozenset(L.UNITS) | frozenset(L.WEEKDAYS) | frozenset(L.MONTHS)
                | frozenset(_STATE_INDEX) | L.NOT_NAMES | L.HEDGES | L.QUALIFIERS
                | L.NEGATORS | frozenset(L.MODIFIER_IDS) | frozenset(L.ROLE_NOUNS)
                | L.TITLES | L.AUXILIARIES | L.VERBS | frozenset(L.NUMBER_WORDS))


def _id_head(w: str) -> str:
    """The kind of object an identifier belongs to, readable: "modules" -> "module"."""
    if w in ("release", "releases", "build", "builds", "v", "ver"):
        return "version"
    st = L.IRREGULAR_STEMS.get(w)
    if st is not None:
        return st
    if len(w) > 3 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _prefixed_state(w: str, _cache: dict = {}) -> tuple[str, int] | None:  # noqa: B006
    if w in _cache:
        return _cache[w]
    r = None
    if len(w) > 5 and w not in L.STOPWORDS:
        for pre in L.NEGATING_PREFIXES:
            if w.startswith(pre):
                base = _STATE_INDEX.get(w[len(pre):])
                if base is not None:
                    r = (base[0], -base[1])
                    break
    if len(_cache) > _CACHE_LIMIT:
        _cache.clear()
    _cache[w] = r
    return r


def _name_shaped(word: str, _cache: dict = {}) -> bool:  # noqa: B006 - deliberate cache
    """One capital, not first of many, no digits, not a known word: "Chen", not "Pump" or "NASA"."""
    r = _cache.get(word)
    if r is None:
        o, w = word, word.lower()
        r = (o[:1].isupper() and len(o) > 1 and not o.isupper() and sum(c.isupper() for c in o) == 1
             and not (w in _KNOWN_WORDS or _stem(w) in _KNOWN_WORDS or w.rstrip("s") in _KNOWN_WORDS)
             and not any(c.isdecimal() for c in o))
        if len(_cache) > _CACHE_LIMIT:
            _cache.clear()
        _cache[word] = r
    return r


def _attribute(w: str, _cache: dict = {}) -> str | None:  # noqa: B006 - deliberate cache
    """The stem of an attribute noun ("pressures" -> "pressure"), else None."""
    if w in _cache:
        return _cache[w]
    r = _stem(w) if w in L.ATTRIBUTE_NOUNS or _stem(w) in L.ATTRIBUTE_NOUNS else None
    if len(_cache) > _CACHE_LIMIT:
        _cache.clear()
    _cache[w] = r
    return r


def _is_verb(tok: str, _cache: dict = {}) -> bool:  # noqa: B006 - deliberate cache
    r = _cache.get(tok)
    if r is None:
        head = tok.split("_", 1)[0]
        if len(_cache) > _CACHE_LIMIT:
            _cache.clear()
        r = _cache[tok] = head in L.AUXILIARIES or head in L.VERBS
    return r


def _parse_number(tok: str) -> float | None:
    try:
        return float(tok.replace(",", ""))
    except ValueError:
        return None


class _Scan:
    """Mutable scratch state for one analysis."""

    __slots__ = ("orig", "low", "kind", "used", "n")

    def __init__(self, orig: list, low: list, kind: list):
        self.orig = orig
        self.low = low
        self.kind = kind
        self.used = [False] * len(orig)
        self.n = len(orig)


def _kind(tok: str) -> str:
    """ "n" number, "t" clock time, "d" ISO date, "w" word, "p" punctuation."""
    c = tok[0]
    if c.isdecimal() or (c == "-" and len(tok) > 1):
        return "t" if ":" in tok else "n"
    if tok.startswith("__date_"):
        return "d"
    if c.isalpha() or c == "'" and tok == "'s":
        return "w"
    return "p"


# A token never spans whitespace, and `_TOKEN` treats the ends of a chunk of text
# between whitespace like the whitespace around it (its lookbehinds and \b see a
# non-word either way; `s'(?=\s)` never matches: the word pattern before it takes
# the "s"). So a text is tokenised chunk by chunk, and chunks repeat across texts.
_CHUNKS: dict[str, tuple[tuple, tuple, tuple]] = {}  # chunk -> (tokens, lower case, kinds)


def _chunk_tokens(chunk: str) -> tuple[tuple, tuple, tuple]:
    toks = _TOKEN.findall(chunk)
    r = (tuple(toks), tuple(t.lower() for t in toks), tuple(_kind(t) for t in toks))
    if len(_CHUNKS) > _CACHE_LIMIT:
        _CHUNKS.clear()
    _CHUNKS[chunk] = r
    return r


def _tokenise(text: str) -> _Scan:
    orig: list[str] = []
    low: list[str] = []
    kind: list[str] = []
    for chunk in _normalise(text).split():
        toks, lows, kinds = _CHUNKS.get(chunk) or _chunk_tokens(chunk)
        orig += toks
        low += lows
        kind += kinds
    orig, low, kind = _join_number_words(orig, low, kind)
    orig, low, kind = _join_phrases(orig, low, kind)
    return _Scan(orig, low, kind)


# The two joining passes below copy the untouched tokens between joins in slices.


def _join_number_words(orig: list, low: list, kind: list) -> tuple[list, list, list]:
    """Spelled-out numbers ("twenty five", "a dozen") become one number token."""
    if _NUMBER_FIRST.isdisjoint(low):
        return orig, low, kind
    out_o: list[str] = []
    out_l: list[str] = []
    out_k: list[str] = []
    done = 0  # tokens before this index are in the output
    n = len(low)
    for i, w in enumerate(low):
        if i < done or w not in _NUMBER_FIRST or kind[i] != "w":
            continue
        two = w + " " + low[i + 1] if i + 1 < n else ""
        three = two + " " + low[i + 2] if i + 2 < n else ""
        val = None
        span = 1
        if three in L.NUMBER_WORDS:
            val, span = L.NUMBER_WORDS[three], 3
        elif two in L.NUMBER_WORDS:
            val, span = L.NUMBER_WORDS[two], 2
        elif w in L.NUMBER_WORDS and w not in ("both", "single", "half") and not (w == "one" and (i > 0 and low[i - 1] in ("no", "any", "every", "each", "the", "this", "that") or i + 1 < n and low[i + 1] in ("of", "another"))):
            val = L.NUMBER_WORDS[w]
        if val is None:
            continue
        j = i + span
        # "twenty five", "two hundred"
        if j < n and kind[j] == "w" and low[j] in L.NUMBER_WORDS and val >= 20 and val % 10 == 0 and L.NUMBER_WORDS[low[j]] < 10:
            val += L.NUMBER_WORDS[low[j]]
            j += 1
        if j < n and kind[j] == "w" and low[j] in L.MULTIPLIERS:
            val *= L.MULTIPLIERS[low[j]]
            j += 1
        s = str(int(val)) if float(val).is_integer() else str(val)
        out_o += orig[done:i]
        out_l += low[done:i]
        out_k += kind[done:i]
        out_o.append(s)
        out_l.append(s)
        out_k.append("n")
        done = j
    if not done:
        return orig, low, kind
    return out_o + orig[done:], out_l + low[done:], out_k + kind[done:]


def _join_phrases(orig: list, low: list, kind: list) -> tuple[list, list, list]:
    """Known phrases ("no longer", "at least") become one word token: "no_longer"."""
    out_o: list[str] = []
    out_l: list[str] = []
    out_k: list[str] = []
    done = 0  # tokens before this index are in the output
    for i in [i for i in range(len(low) - 1) if low[i] in _PHRASES]:
        if i < done or kind[i] != "w":
            continue
        for words, joined in _PHRASES[low[i]].get(low[i + 1], ()):
            m = len(words)
            if low[i : i + m] == words:
                out_o += orig[done:i]
                out_l += low[done:i]
                out_k += kind[done:i]
                out_o.append(" ".join(orig[i : i + m]))
                out_l.append(joined)
                out_k.append("w")
                done = i + m
                break
    if not done:
        return orig, low, kind
    return out_o + orig[done:], out_l + low[done:], out_k + kind[done:]


# every token a unit can start with (below, before the aliases and joins)
_UNIT_FIRST = (frozenset(L.UNITS) | frozenset(_UNIT_ALIASES) | {"°", "degree", "degrees", "deg", "mb", "m", "cm", "mm", "km"}
               | frozenset(c.lower() for c in L.DATA_CAPITALS))


def _unit_at(s: _Scan, j: int) -> tuple[str, float, float, int] | None:
    """Unit starting at token j: (dim, factor, offset, tokens used)."""
    if j >= s.n or s.low[j] not in _UNIT_FIRST:
        return None
    w = s.low[j]
    o = s.orig[j]
    used = 1
    if w == "°" and j + 1 < s.n and s.low[j + 1] in ("c", "f", "k", "celsius", "fahrenheit"):
        w = "°" + s.low[j + 1][0]
        used = 2
    elif w in ("degree", "degrees", "deg") and j + 1 < s.n and s.low[j + 1] in ("c", "f", "celsius", "fahrenheit"):
        w = "°" + s.low[j + 1][0]
        used = 2
    elif o in L.DATA_CAPITALS:
        w = L.DATA_CAPITALS[o]
    elif w == "mb" and o != "MB":
        w = "mbar"
    elif w in ("m", "cm", "mm", "km") and j + 1 < s.n and s.low[j + 1] in ("³", "3"):
        w = w + "3"
        used = 2
    w = _UNIT_ALIASES.get(w, w)
    if w in ("m", "km", "l", "ml", "kg", "g", "mi") and j + 2 < s.n and s.low[j + 1] == "/":
        rate = L.TIME_UNIT_FOR_RATE.get(s.low[j + 2].rstrip("s")) or L.TIME_UNIT_FOR_RATE.get(s.low[j + 2])
        if w == "km" and s.low[j + 2] in ("h", "hr", "hour"):
            return ("speed",) + L.UNITS["km/h"][1:] + (3,)
        if w == "m" and s.low[j + 2] in ("s", "sec"):
            return ("speed",) + L.UNITS["m/s"][1:] + (3,)
        if rate:
            dim, f, off = L.UNITS[w]
            return (dim + "/t", f / rate, 0.0, 3)
    u = L.UNITS.get(w)
    if u is None:
        return None
    if w == "c" and o != "C" or w == "f" and o != "F":  # lower-case c/f after a number: not a temperature
        return None
    return u + (used,)


def _rate_suffix(s: _Scan, j: int) -> tuple[float, int] | None:
    """'per minute', '/h', 'a day', 'each hour' starting at j (skipping 'of X' up to 3 words)."""
    k = j
    hops = 0
    while k < s.n and hops < 4:
        w = s.low[k]
        if w in ("per", "/", "a", "an", "each", "every") and k + 1 < s.n:
            nxt = s.low[k + 1]
            secs = L.TIME_UNIT_FOR_RATE.get(nxt) or (L.TIME_UNIT_FOR_RATE.get(nxt[:-1]) if nxt.endswith("s") and w == "/" else None)
            if secs:
                return secs, k + 2
            return None
        if s.kind[k] != "w" or w in L.STOPWORDS and w not in ("of",) or _is_verb(w):
            return None
        k += 1
        hops += 1
    return None


def analyse_text(text: str) -> Analysis:
    """Extract the judge's slots from one memory text (pure; see `RuleJudge.analyse`)."""
    return _Reader(text).read()


# every word `_Reader._days` reacts to (weekday abbreviations as lower-cased tokens)
_DAY_WORDS = (frozenset(L.WEEKDAYS) | frozenset(d + "s" for d in L.WEEKDAYS) | frozenset(a.lower() for a in L.WEEKDAY_ABBREV)
              | {"sol"} | frozenset(k.replace(" ", "_") for k in L.RELATIVE_DAYS) | frozenset(L.MONTHS))
_TITLE_OR_ROLE = L.TITLES | frozenset(L.ROLE_NOUNS)
_EMPTY: frozenset = frozenset()
_NO_WORDS = frozenset({"no", "none", "nothing", "without", "free_of", "clear_of", "lack_of", "absence_of"})


class _Reader:
    """Reads one text in stages; each stage marks the tokens it consumed as used."""

    def __init__(self, text: str):
        self.text = text
        self.s = s = _tokenise(text)
        self.low, self.orig, self.kind, self.used, self.n = s.low, s.orig, s.kind, s.used, s.n
        self.vocab = set(s.low)  # to skip stages whose trigger words are absent

    def read(self) -> Analysis:
        self._frame()
        self._flags()
        self._negation_scope()
        self._times()
        self._days()
        self._identities()
        self._modifier_identities()
        self._quantities()
        self._people()
        self._main_verb()
        self._states()
        self._places()
        return self._result()

    # -- framing: a leading label, sentence starts
    def _frame(self) -> None:
        low, n = self.low, self.n
        # a leading label ("Retraction:", "Update:") is not the subject
        self.start = 0
        if n > 2 and low[1] == ":" and low[0] in _LABEL_WORDS:
            self.start = 2
        elif n > 3 and low[2] == ":" and low[0] in _LABEL_WORDS:
            self.start = 3
        sent_start = [False] * n
        if n:
            sent_start[self.start if self.start < n else 0] = True
        for i in [i for i in range(n - 1) if low[i] in _SENT_END]:
            if not (low[i] == "." and i >= 1 and low[i - 1] in L.TITLES):  # "Dr. Chen"
                sent_start[i + 1] = True
        self.sent_start = sent_start

    # -- hedges, qualifiers, negators, retraction
    def _flags(self) -> None:
        low, kind, used, n, start = self.low, self.kind, self.used, self.n, self.start
        hedged = qualified = False
        clause_qual_at = n  # first token of a restricting clause
        negators: list[int] = []
        for i in [i for i in range(start, n) if low[i] in _FLAG_WORDS]:
            w = low[i]
            if kind[i] != "w":
                continue
            if w in _HEDGE_PHRASE_TOKENS:
                hedged = True
                used[i] = True
            elif w in L.HEDGES and self._is_hedge(i):
                hedged = True
                used[i] = True
            if w in _QUAL_PHRASE_TOKENS or w in L.QUALIFIERS:
                if not (w == "some" and i + 1 < n and kind[i + 1] == "n"  # "some 20 kg": about
                        or w == "most" and i > 0 and low[i - 1] == "the"):  # a superlative
                    qualified = True
            if w in L.CLAUSE_QUALIFIERS:
                is_clause = True
                if w == "when" and (i == start or i > 0 and _is_past(low[i - 1])):
                    is_clause = False  # "damaged when the lander touched down": a time, not a condition
                if w == "once" and not (i + 1 < n and low[i + 1] in _ONCE_CLAUSE):
                    is_clause = False  # "not failed once this month": emphasis, not a condition
                if is_clause:
                    if w in ("when", "once"):
                        qualified = True
                    clause_qual_at = min(clause_qual_at, i)
            if w in L.NEGATORS or w in _NEG_PHRASE_TOKENS:
                negators.append(i)
        self.hedged, self.qualified, self.negators = hedged, qualified, negators
        self.main_end = clause_qual_at  # the main clause ends where a restriction starts
        self.retracts = self._retracts()

    def _retracts(self) -> bool:
        low, start = self.low, self.start
        lowered = self.text.lower()
        # a retraction phrase starts and ends at word boundaries, so each of its words is a
        # word of the text; most texts lack the key words and skip the slow phrase searches
        words = set(_WORD.findall(lowered))
        strong = not _STRONG_KEYS.isdisjoint(words)
        weak = not _WEAK_KEYS.isdisjoint(words)
        # whitespace runs as one space (the ends need none: every phrase starts with a letter)
        lowtext = " ".join(lowered.replace("’", "'").split()) if strong or weak else ""
        if (strong and _RETRACT_STRONG.search(lowtext)
                or start < self.n and low[start] in _IMPERATIVE_FIRST and _RETRACT_IMPERATIVE.match(" ".join(low[start:]))):
            return True
        if weak and _RETRACT_WEAK.search(lowtext) and not _RETRACT_NOT_AFTER.search(lowtext):
            return bool(set(low) & L.REPORT_WORDS)  # "wrong" counts only about a report
        return False

    def _is_hedge(self, i: int) -> bool:
        low, orig, kind, n = self.low, self.orig, self.kind, self.n
        w = low[i]
        if w == "may":
            if (i + 1 < n and (kind[i + 1] == "n" or low[i + 1] == "not")) or (
                i > 0 and (kind[i - 1] == "n" or low[i - 1] in ("in", "of", "early", "late", "mid", "since", "until", "by"))
            ) or (orig[i] == "May" and not self.sent_start[i]):
                return False  # the month, or "may not" (permission)
            if any(low[k] in L.NEGATORS or low[k] == "no_one" for k in range(max(self.start, i - 4), i)):
                return False  # "no crew member may": permission, not doubt
        if w == "could" and i + 1 < n and low[i + 1] == "not":
            return False
        if w in ("suggest", "suggests") and i > self.start and low[i - 1] == ",":
            return False
        return True

    # -- negation scope: parity of negators over each token
    def _negation_scope(self) -> None:
        low, kind, n = self.low, self.kind, self.n
        negcount = [0] * n
        negset = set(self.negators)
        scopes: dict[int, list[int]] = {}
        for i in reversed(self.negators):  # inner scopes first: "not ... without X" negates X twice
            k = i + 1
            steps = 0
            scope: list[int] = []
            scopes[i] = scope
            while k < n and steps < 6:
                w = low[k]
                if k in negset:
                    scope.extend(scopes.get(k, ()))
                    break
                if kind[k] == "p" and w in _PUNCT or w in _CONJ_BREAK:
                    break
                if w in _SCOPE_STOP and w != "of" and steps > 0:
                    break  # "did not trigger during the test": the test is not negated
                scope.append(k)
                k += 1
                steps += 1
        for scope in scopes.values():
            for k in scope:
                negcount[k] += 1
        self.negcount = negcount

    # -- clock times
    def _times(self) -> None:
        low, orig, kind, used, n = self.low, self.orig, self.kind, self.used, self.n
        times: set[int] = set()
        time_text: list[str] = []

        def add_time(h: int, m: int, ampm: str | None, i0: int, i1: int) -> None:
            # ampm: "am", "pm", "24" (a 24-hour reading) or None (either half of the day)
            if not (0 <= h <= 24 and 0 <= m < 60):
                return
            if ampm == "pm" and h < 12:
                h += 12
            elif ampm == "am" and h == 12:
                h = 0
            times.add((h % 24) * 60 + m)
            if ampm is None and 1 <= h <= 12:
                times.add(((h + 12) % 24) * 60 + m)
            time_text.append(" ".join(orig[i0:i1]))
            for k in range(i0, i1):
                used[k] = True

        def day_part(j: int) -> tuple[str | None, int]:
            if j < n and low[j] in _AMPM:
                return low[j], j + 1
            if j + 2 < n and low[j] == "in" and low[j + 1] == "the" and low[j + 2] in L.DAY_PARTS:
                return L.DAY_PARTS[low[j + 2]], j + 3
            if j + 1 < n and low[j] == "at" and low[j + 1] == "night":
                return "pm", j + 2
            return None, j

        for i in [i for i, k in enumerate(kind) if k == "n" or k == "t" or low[i] in L.NAMED_TIMES]:
            if used[i]:
                continue
            k = kind[i]
            w = low[i]
            if k == "t":
                h, m = w.split(":")
                ap, j = day_part(i + 1)
                if j < n and low[j] in ("hours", "hrs", "h"):
                    j += 1
                # "07:15" and "19:15" are 24-hour readings; "7:15" may be either half of the day
                add_time(int(h), int(m), ap or ("24" if h.startswith("0") or int(h) > 12 else None), i, j)
            elif k == "n" and "." not in w and "," not in w and not w.startswith("-"):
                v = int(w)
                ap, j = day_part(i + 1)
                if ap and 1 <= v <= 12:
                    add_time(v, 0, ap, i, j)
                elif len(w) == 4 and v % 100 < 60 and v // 100 < 24 and (
                    (i + 1 < n and low[i + 1] in ("hours", "hrs", "h", "hr", "z", "utc", "local", "lmst"))
                    or (i > 0 and low[i - 1] in ("at", "from", "until", "till", "by", "before", "after", "since")
                        and _unit_at(self.s, i + 1) is None)  # "at 1100 °C" is a temperature
                ):
                    j = i + 1
                    if j < n and low[j] in ("hours", "hrs", "h", "hr", "z"):
                        j += 1
                    add_time(v // 100, v % 100, "24", i, j)
                elif i + 1 < n and low[i + 1] == "oclock" and 1 <= v <= 12:
                    ap, j = day_part(i + 2)
                    add_time(v, 0, ap, i, j)
            elif w in L.NAMED_TIMES:
                mins = L.NAMED_TIMES[w]
                add_time(mins // 60, mins % 60, "24", i, i + 1)
        self.times, self.time_text = times, time_text

    # -- weekdays, sols, dates, relative days
    def _days(self) -> None:
        low, orig, kind, used, n = self.low, self.orig, self.kind, self.used, self.n
        days: dict[str, set] = {}
        if _DAY_WORDS.isdisjoint(self.vocab) and "d" not in kind:
            self.days = days
            return
        for i in [i for i, w in enumerate(low) if w in _DAY_WORDS or kind[i] == "d"]:
            w = low[i]
            k = kind[i]
            if k == "d":
                mo, dd = w[len("__date_"):].split("_")
                days.setdefault("date", set()).add((int(mo), int(dd)))
                used[i] = True
                continue
            if k != "w" or used[i]:
                continue
            wd = L.WEEKDAYS.get(w) or L.WEEKDAYS.get(w[:-1] if w.endswith("s") else "")
            if wd is None and orig[i] in L.WEEKDAY_ABBREV and not (orig[i] == "Sun" and i > 0 and low[i - 1] == "the"):
                wd = L.WEEKDAY_ABBREV[orig[i]]
            if wd:
                days.setdefault("weekday", set()).add(wd)
                used[i] = True
            elif w == "sol" and i + 1 < n and kind[i + 1] == "n":
                days.setdefault("sol", set()).add(low[i + 1])
                used[i] = used[i + 1] = True
            elif w.replace("_", " ") in L.RELATIVE_DAYS:
                days.setdefault("relative", set()).add(L.RELATIVE_DAYS[w.replace("_", " ")])
                used[i] = True
            elif w in L.MONTHS:
                self._date(i, L.MONTHS[w], days)
        self.days = days

    def _date(self, i: int, mo: int, days: dict) -> None:
        """ "March 3", "March 3rd", "3 March", "3rd of March", "the 5th of April", "in May"."""
        low, orig, kind, used, n = self.low, self.orig, self.kind, self.used, self.n
        if i + 1 < n and kind[i + 1] == "n" and "." not in low[i + 1] and 1 <= float(low[i + 1]) <= 31:
            days.setdefault("date", set()).add((mo, int(low[i + 1])))
            used[i] = used[i + 1] = True
            if i + 2 < n and low[i + 2] in _ORDINAL_SUFFIX:
                used[i + 2] = True
            return
        j = i - 1
        if j >= 0 and low[j] == "of":
            j -= 1
        if j >= 0 and low[j] in _ORDINAL_SUFFIX:
            j -= 1
        if j >= 0 and kind[j] == "n" and "." not in low[j] and 1 <= float(low[j]) <= 31:
            days.setdefault("date", set()).add((mo, int(low[j])))
            for k in range(j, i + 1):
                used[k] = True
            return
        w = low[i]
        # a bare month name; short forms and "May" only when capitalised
        if orig[i][0].isupper() or (len(w) > 3 and w != "may" and w != "sept"):
            days.setdefault("month", set()).add(mo)
            used[i] = True

    # -- identities: "rover 5", "module C", "node 2 hatch"
    def _identities(self) -> None:
        low, orig, kind, used, n = self.low, self.orig, self.kind, self.used, self.n
        id_pos: list[tuple[int, str, str]] = []  # (token index, head, id)
        for i in [j - 1 for j in range(1, n) if kind[j] == "n" or kind[j] == "w" and len(orig[j]) <= 2 and orig[j][:1].isupper()]:
            w = low[i]
            if kind[i] != "w" or used[i] or w in L.STOPWORDS or w in L.NEGATORS:
                continue
            j = i + 1
            if used[j]:
                continue
            nxt_o = orig[j]
            ident = None
            after = low[j + 1] if j + 1 < n else ""
            if kind[j] == "n" and not nxt_o.startswith("-") and "," not in nxt_o:
                unit_next = _unit_at(self.s, j + 1)
                if w in L.ID_NOUNS:
                    if unit_next is None or unit_next[0] == "ratio" or after == "'s":
                        ident = nxt_o.lower()  # else "tank 200 litres": a quantity after all
                elif (unit_next is None and self._ends_phrase(j) and not _is_verb(w) and w not in _STATE_INDEX and w not in L.UNITS
                      and w not in _LOWER_TOKENS and w not in _UPPER_TOKENS and w not in L.APPROXIMATORS):
                    ident = nxt_o.lower()
            elif (kind[j] == "w" and len(nxt_o) <= 2 and nxt_o[:1].isupper() and (nxt_o.isupper() or nxt_o[1:].isdigit())
                  and w.isalpha() and nxt_o != "I"):
                # a capital letter: "module C", "bus A" ("A" only after a known noun)
                if (w in L.ID_NOUNS or orig[i][:1].isupper() or self._ends_phrase(j)) and (nxt_o != "A" or w in L.ID_NOUNS):
                    ident = nxt_o.lower()
            if ident is not None:
                id_pos.append((i, _id_head(w), ident))
                used[i] = used[j] = True
        self.id_pos = id_pos

    def _ends_phrase(self, j: int) -> bool:
        """Whether a noun phrase ends at token j: punctuation, 's, a stopword or a verb follows."""
        if j + 1 >= self.n:
            return True
        after = self.low[j + 1]
        return self.kind[j + 1] == "p" or after == "'s" or after in L.STOPWORDS or _is_verb(after)

    # -- modifier identities: "east array", "inner hatch", "staging database", "front-left wheel"
    def _modifier_identities(self) -> None:
        low, kind, used, n = self.low, self.kind, self.used, self.n
        mod_pos: list[tuple[int, str, str]] = []
        # a run starts at a modifier word (a run found to lack a noun fails again from
        # its later words; a run taken marks its words used)
        for i in [i for i, w in enumerate(low) if w in L.MODIFIER_IDS or "-" in w]:
            mods: list[str] = []
            k = i
            while k < n and kind[k] == "w" and not used[k]:
                parts = low[k].split("-") if "-" in low[k] else [low[k]]
                if all(p in L.MODIFIER_IDS for p in parts):
                    mods.extend(L.MODIFIER_IDS[p] for p in parts)
                    k += 1
                else:
                    break
            if mods and k < n and kind[k] == "w" and self._nounish(k):
                h = k  # the head is the last noun of the run ("east solar array" -> array)
                while h + 1 < n and h - k < 2 and kind[h + 1] == "w" and not used[h + 1] and low[h + 1] != "'s" and self._nounish(h + 1):
                    h += 1
                mod_pos.append((i, _id_head(low[h]), " ".join(sorted(mods))))
                for q in range(i, k):
                    used[q] = True
        self.mod_pos = mod_pos

    def _nounish(self, k: int) -> bool:
        w = self.low[k]
        return w not in L.STOPWORDS and not _is_verb(w) and w not in _STATE_INDEX and w not in L.NEGATORS

    # -- quantities: numbers with units (to SI), counts of things
    def _quantities(self) -> None:
        low, orig, kind, used, n = self.low, self.orig, self.kind, self.used, self.n
        found: list[tuple[int, str, float, float, str, str | None]] = []  # (pos, dim, lo, hi, text, counted noun)
        for i in [i for i, k in enumerate(kind) if k == "n"]:
            if used[i]:
                continue
            v = _parse_number(low[i])
            if v is None:
                continue
            j = i + 1
            if j + 1 < n and low[j] in ("x", "×", "*") and kind[j + 1] == "n":
                v2 = _parse_number(low[j + 1])
                if v2 is not None:  # "2 x 250 mg"
                    v *= v2
                    used[j] = used[j + 1] = True
                    j += 2
            lo_v = hi_v = v
            # ranges "10-15 kPa", "10 to 15 kPa", "between 10 and 15 kPa"
            if j + 1 < n and low[j] in ("-", "to", "and") and kind[j + 1] == "n":
                v2 = _parse_number(low[j + 1])
                if v2 is not None and (low[j] != "and" or i > 0 and low[i - 1] == "between"):
                    lo_v, hi_v = min(v, v2), max(v, v2)
                    used[j] = used[j + 1] = True
                    j += 2
            u = L.UNITS["%"] + (1,) if j < n and low[j] == "%" else _unit_at(self.s, j)
            cmp, approx = self._comparator(i)
            noun = None
            if u is not None:
                dim, factor, offset, ulen = u
                end = j + ulen
                rate = _rate_suffix(self.s, end)
                if rate and not dim.endswith("/t") and dim not in ("speed", "frequency"):
                    secs, end2 = rate  # "30 litres per minute", "2 kg of O2 a day"
                    dim, factor, offset = dim + "/t", factor / secs, 0.0
                    for q in range(end, end2):
                        if low[q] in ("per", "/", "a", "an", "each", "every") or low[q] in L.TIME_UNIT_FOR_RATE or low[q].rstrip("s") in L.TIME_UNIT_FOR_RATE:
                            used[q] = True
                lo_si, hi_si = lo_v * factor + offset, hi_v * factor + offset
                for q in range(j, j + ulen):
                    used[q] = True
            else:
                nouns = self._counted(j)
                dim = "count" if nouns else "number"  # a bare number is never compared
                noun = " ".join(nouns) if nouns else None
                lo_si, hi_si = lo_v, hi_v
                end = j
            if dim == "temperature":
                tol = max(0.6, 0.015 * abs(lo_si - 273.15))
            elif dim in ("count", "number"):
                tol = 0.0
            else:
                tol = 0.025 * max(abs(lo_si), abs(hi_si))  # rounding in conversions
            if approx:
                tol = max(tol, 0.1 * max(abs(lo_si), abs(hi_si)))
            lo_q, hi_q = lo_si - tol, hi_si + tol
            if cmp == "gt":
                hi_q = math.inf
            elif cmp == "lt":
                lo_q = -math.inf
            used[i] = True
            written = " ".join(orig[i:end]).replace(" / ", "/").replace("° ", "°")
            found.append((i, dim, lo_q, hi_q, written, noun))
        self.quantity_raw = found

    def _comparator(self, i: int) -> tuple[str | None, bool]:
        """ "over 20", "less than 5", "about 3" just before the number at i."""
        low = self.low
        p = i - 1
        cmp = None
        approx = False
        while p >= 0 and p >= i - 2:
            if low[p] in _LOWER_TOKENS:
                cmp = "gt"
            elif low[p] in _UPPER_TOKENS:
                cmp = "lt"
            elif low[p] in L.APPROXIMATORS:
                approx = True
            elif low[p] not in ("the", "a", "of", "at", "to", "is", "by", "be"):
                break
            p -= 1
        return cmp, approx

    def _counted(self, j: int) -> list[str]:
        """The noun(s) a bare number counts: "4 crew members", "3 of the 4 heaters"."""
        low, kind, used, n = self.low, self.kind, self.used, self.n
        nouns: list[str] = []
        q = j
        if q + 1 < n and low[q] == "of":
            q2 = q + 1
            if low[q2] in _DETERMINERS:
                q2 += 1
            if q2 < n and kind[q2] == "n":
                used[q2] = True
                q = q2 + 1
            elif q2 < n and kind[q2] == "w":
                q = q2
        while q < n and len(nouns) < 3 and kind[q] == "w" and not used[q]:
            wq = low[q]
            if wq in L.STOPWORDS and wq != "more" or _is_verb(wq) or wq in _STATE_INDEX and nouns:
                break
            if wq not in ("more", "extra", "additional", "other", "new", "spare"):
                nouns.append(_stem(wq))
            q += 1
        return nouns

    # -- people (names, titles, possessives) and crew roles
    def _people(self) -> None:
        low, orig, kind, used, n = self.low, self.orig, self.kind, self.used, self.n
        people_at: list[tuple[int, str, bool]] = []  # (index, name, possessive before a noun)
        roles_at: list[tuple[int, str]] = []
        # only capitalised words, titles and role nouns can be people
        for i in [i for i in range(self.start, n) if kind[i] == "w" and (
                  orig[i][:1].isupper() or low[i] in _TITLE_OR_ROLE or low[i].rstrip("s") in L.ROLE_NOUNS)]:
            if used[i]:
                continue
            w = low[i]
            name = None
            last = i
            if w in L.TITLES and i + 1 < n:
                j = i + 1
                if low[j] == "." and j + 1 < n:
                    j += 1
                if kind[j] == "w" and orig[j][:1].isupper() and low[j] not in L.NOT_NAMES and low[j] not in L.STOPWORDS:
                    name = low[j]
                    for q in range(i, j + 1):
                        used[q] = True
                    last = j
            if name is None and self._is_name(i):
                name = w
                used[i] = True
            if name:
                poss = last + 1 < n and low[last + 1] == "'s"
                before_noun = poss and last + 2 < n and kind[last + 2] == "w" and not _is_verb(low[last + 2]) and low[last + 2] not in L.STOPWORDS
                if poss:
                    used[last + 1] = True
                people_at.append((i, name, bool(before_noun)))
                continue
            role = L.ROLE_NOUNS.get(w) or L.ROLE_NOUNS.get(w.rstrip("s"))
            if role:
                roles_at.append((i, role))
                used[i] = True
        self.people_at, self.roles_at = people_at, roles_at

    def _is_name(self, i: int) -> bool:
        o, w = self.orig[i], self.low[i]
        if "_" in w or not _name_shaped(o):
            return False
        if not self.sent_start[i]:
            return True
        # first word of a sentence: a name only if a verb follows and it does not look like a common word
        nxt = self.low[i + 1] if i + 1 < self.n else ""
        return (nxt == "'s" or _is_verb(nxt) or nxt in L.NEGATORS or nxt == "and") and not w.endswith(L.COMMON_SUFFIXES)

    # -- the main verb: the subject ends at the first verb (or a colon)
    def _main_verb(self) -> None:
        low, kind, used, n, start = self.low, self.kind, self.used, self.n, self.start
        verb_at = n
        for i in range(start, n):
            w = low[i]
            if w == ":" or (kind[i] == "w" and not used[i] and (_is_verb(w) or (len(w) > 4 and w.endswith("ed") and i > start and low[i - 1] not in _DETERMINERS))):
                if w not in _TRUE_AUX and i + 1 < n and low[i + 1] in _TRUE_AUX:
                    continue  # "the deploy was rolled back": a noun before the verb
                verb_at = i
                break
            if kind[i] == "w" and w in L.NEGATORS and i > start and w not in ("no", "none", "nobody", "nothing", "no_one"):
                verb_at = i
                break
        if verb_at == n:
            # telegraphic memories ("Hab water recovery system operating nominally"):
            # the first participle or state word starts the predicate
            for i in range(start + 1, n):
                w = low[i]
                if kind[i] == "w" and not used[i] and low[i - 1] not in _DETERMINERS and (
                    (len(w) > 5 and w.endswith(("ing", "ed"))) or w in _STATE_INDEX
                ):
                    verb_at = i
                    break
        self.verb_at = verb_at

    # -- state words on antonym axes, with negation
    def _states(self) -> None:
        low, orig, kind, n, verb_at, negcount = self.low, self.orig, self.kind, self.n, self.verb_at, self.negcount
        axes: dict[str, set] = {}
        subj_axes: dict[str, set] = {}
        axis_words: dict[str, str] = {}

        def add_axis(axis: str, pole: int, i: int) -> None:
            if negcount[i] % 2:
                pole = -pole
            target = subj_axes if i < verb_at else axes
            target.setdefault(axis, set()).add(pole)
            axis_words.setdefault(axis, orig[i])
            for (ax2, p2) in L.STATE_IMPLIES.get((axis, pole), ()):
                target.setdefault(ax2, set()).add(p2)

        # only state words, particles and prefixed words ("unsealed") can be states
        for i in [i for i in range(self.start, self.main_end) if kind[i] == "w" and (
                  low[i] in _STATE_INDEX or low[i] in _PARTICLE_STATES or low[i].startswith(L.NEGATING_PREFIXES))]:
            w = low[i]
            if w in _PARTICLE_STATES and i > 0 and low[i - 1] in _COPULAS:
                nxt = low[i + 1] if i + 1 < n else "."
                if nxt in _PUNCT or nxt in _PARTICLE_FOLLOW:  # "the relay is down."
                    add_axis(*_PARTICLE_STATES[w], i)
                    continue
            st = _STATE_INDEX.get(w) or _prefixed_state(w)
            if st is None:
                continue
            blocker = L.STATE_BLOCKERS.get(w)
            if blocker and i + 1 < n and low[i + 1] == blocker:
                continue
            if w in ("clear", "cleared") and i + 1 < n and kind[i + 1] == "w" and orig[i + 1][:1].isupper():
                continue  # "cleared Chen": a permission, not an unobstructed place
            add_axis(st[0], st[1], i)
        for axis, poles in subj_axes.items():
            axes.setdefault(axis, poles)  # "the broken antenna": only if the predicate is silent
        self.axes, self.axis_words = axes, axis_words

    # -- places: prepositional phrases naming a location
    def _places(self) -> None:
        low, orig, kind, used, n, verb_at = self.low, self.orig, self.kind, self.used, self.n, self.verb_at
        places: list[frozenset] = []
        subject_places: list[frozenset] = []
        place_ids: set[int] = set()  # identities that name a predicate location
        id_index = {p: (h, d) for p, h, d in self.id_pos}
        mod_index = {p: (h, d) for p, h, d in self.mod_pos}
        for i in [i for i in range(self.start, self.main_end) if low[i] in L.PLACE_PREPOSITIONS and kind[i] == "w"]:
            k = i + 1
            words: list[str] = []
            placey = False
            while k < n and len(words) < 4:
                wk = low[k]
                if k in id_index:
                    h, d = id_index[k]
                    words.append(f"{h} {d}")
                    placey = True
                    if i >= verb_at:
                        place_ids.add(k)
                    k += 2
                    continue
                if k in mod_index:
                    words.append(mod_index[k][1])
                    k += 1
                    while k < n and used[k] and kind[k] == "w":
                        k += 1
                    continue
                if wk in _DETERMINERS and not words:
                    k += 1
                    continue
                if kind[k] != "w" or used[k] or wk in L.STOPWORDS or _is_verb(wk) or wk in L.PLACE_PREPOSITIONS:
                    break
                if wk in _STATE_INDEX and not (k + 1 < n and kind[k + 1] == "w" and (low[k + 1] in L.PLACE_NOUNS or _stem(low[k + 1]) in L.PLACE_NOUNS)):
                    break  # a state word ends the phrase unless it names a place ("cold room")
                st = _stem(wk)
                words.append(st)
                if wk in L.PLACE_NOUNS or st in L.PLACE_NOUNS or orig[k][:1].isupper():
                    placey = True
                k += 1
            if placey and words:
                (subject_places if i < verb_at else places).append(frozenset(words))
        self.places, self.subject_places, self.place_ids = places, subject_places, place_ids

    # -- content words and the final record
    def _result(self) -> Analysis:
        low, kind, used, n = self.low, self.kind, self.used, self.n
        verb_at, main_end, negcount = self.verb_at, self.main_end, self.negcount
        content: set[str] = set()
        subject: set[str] = set()
        predicate: set[str] = set()
        attributes: set[str] = set()
        positive: set[str] = set()
        negated: set[str] = set()
        for i in [i for i in range(self.start, main_end) if kind[i] == "w" and not used[i] and low[i] not in _NOT_CONTENT]:
            w = low[i]
            st = _stem(w)
            content.add(st)
            if i < verb_at:
                nxt = low[i + 1] if i + 1 < n else ""
                # "water pump": an attribute noun before another noun only modifies it
                modifier = i + 1 < verb_at and kind[i + 1] == "w" and not used[i + 1] and nxt not in L.STOPWORDS and not _is_verb(nxt) and nxt != "'s"
                if (w in L.ATTRIBUTE_NOUNS or st in L.ATTRIBUTE_NOUNS) and not modifier:
                    attributes.add(st)
                elif w not in L.PRONOUNS:
                    subject.add(st)
            else:
                predicate.add(st)
            if negcount[i] % 2:
                negated.add(st)
            elif i >= verb_at:
                positive.add(st)

        ids: dict[str, set] = {}
        all_ids: set[str] = set()
        for p, h, d in self.id_pos:
            all_ids.add(f"{h} {d}")
            if p not in self.place_ids:
                ids.setdefault(h, set()).add(d)  # the subject, or the predicate's object ("drive rover 2")
        for p, h, d in self.mod_pos:
            if p < verb_at:
                ids.setdefault(h, set()).add(d)
                all_ids.add(f"{h} {d}")
        owners = people = roles = _EMPTY
        if self.people_at:
            owners = frozenset(nm for p, nm, poss in self.people_at if poss)
            people = frozenset(nm for p, nm, poss in self.people_at if not poss and p < main_end) - owners
        if self.roles_at:
            roles = frozenset(r for p, r in self.roles_at if p < main_end)
        personal = bool(not owners and (people or roles) and any(low[i] in L.PERSONAL_CONDITIONS for i in range(max(verb_at, self.start), main_end)))

        return Analysis(
            text=self.text,
            content=frozenset(content),
            subject=frozenset(subject),
            predicate=frozenset(predicate),
            attributes=frozenset(attributes),
            ids={h: frozenset(v) for h, v in ids.items()},
            all_ids=frozenset(all_ids),
            owners=owners,
            people=people,
            roles=roles,
            places=tuple(self.places),
            subject_places=tuple(self.subject_places),
            quantities=self._quantity_records(),
            times=frozenset(self.times),
            time_text=tuple(self.time_text),
            days={k: frozenset(v) for k, v in self.days.items()},
            axes={k: frozenset(v) for k, v in self.axes.items()},
            axis_words=self.axis_words,
            positive=frozenset(positive - negated),
            negated=frozenset(negated - positive),
            hedged=self.hedged,
            qualified=self.qualified,
            retracts=self.retracts,
            personal=personal,
        )

    def _quantity_records(self) -> tuple:
        """Quantities of the main clause, each keyed by what it measures: the nearest
        attribute noun ("pressure", "battery") or, for counts, the counted noun."""
        low, kind, n = self.low, self.kind, self.n
        out: list[Quantity] = []
        for pos, dim, lo_q, hi_q, qtext, noun in self.quantity_raw:
            if pos >= self.main_end:
                continue
            if dim == "count":
                key = frozenset(noun.split()) if noun else frozenset()
            else:
                key = frozenset()
                q = pos - 1
                while q >= 0 and pos - q <= 8 and not (kind[q] == "p" and low[q] in (".", ";", "!", "?")):
                    if kind[q] == "w" and (attr := _attribute(low[q])) is not None:
                        key = frozenset((attr,))
                        break
                    q -= 1
                if not key:
                    for q in range(pos + 1, min(n, pos + 4)):
                        if kind[q] == "w" and (attr := _attribute(low[q])) is not None:
                            key = frozenset((attr,))
                            break
            out.append(Quantity(dim, lo_q, hi_q, key, qtext))
        return tuple(out)


_NOT_CONTENT = (L.STOPWORDS | L.NEGATORS | L.HEDGES | L.QUALIFIERS | L.APPROXIMATORS
                | _NEG_PHRASE_TOKENS | _QUAL_PHRASE_TOKENS | _LOWER_TOKENS | _UPPER_TOKENS
                | (L.AUXILIARIES - L.VERBS))


_FLAG_WORDS = (_HEDGE_PHRASE_TOKENS | L.HEDGES | _QUAL_PHRASE_TOKENS | L.QUALIFIERS | L.CLAUSE_QUALIFIERS
               | L.NEGATORS | _NEG_PHRASE_TOKENS)  # every word `_Reader._flags` looks at
_ONCE_CLAUSE = frozenset({"it", "they", "he", "she", "we", "you", "the", "its", "their", "our", "all"})
_TRUE_AUX = frozenset({"is", "are", "was", "were", "has", "have", "had", "will", "would", "can",
                       "could", "should", "may", "might", "must", "does", "did", "shall"})
_PAST_IRREGULAR = frozenset({"broke", "fell", "went", "came", "took", "ran", "hit", "shut", "tore",
                             "froze", "blew", "began", "got", "was", "were", "had", "did", "left",
                             "lost", "found", "drove", "flew", "rose", "woke", "slept", "said"})


def _is_past(w: str) -> bool:
    return w in _PAST_IRREGULAR or (len(w) > 4 and w.endswith("ed"))


# ---------------------------------------------------------- comparison ---


def _places_compatible(a: frozenset, b: frozenset) -> bool:
    return a <= b or b <= a


def _compare_quantities(qa: tuple, qb: tuple, matched: list, clashed: list) -> None:
    for x in qa:
        cands = []
        for y in qb:
            if x.dim != y.dim:
                continue
            if x.dim == "count":
                if not (x.key & y.key):
                    continue
            elif x.key and y.key and not (x.key & y.key):
                continue
            if x.dim == "number":
                continue
            cands.append(y)
        if not cands:
            continue
        hit = next((y for y in cands if x.overlaps(y)), None)
        if hit is not None:
            matched.append(f"number:{x.text} = {hit.text}" if x.text != hit.text else f"number:{x.text}")
        else:
            clashed.append(f"number:{x.text} vs {cands[0].text}")


def _verdict(relation: str, confidence: float, reason: str, matched, clashed) -> Verdict:
    return Verdict(relation, round(min(1.0, max(0.0, confidence)), 3), reason, tuple(matched), tuple(clashed))


class RuleJudge:
    """The built-in judge: slot extraction plus comparison rules, no model, no I/O."""

    fork_safe = True  # pure, so a pull may judge with it in forked workers

    def __init__(self, *, floor: float = CANDIDATE_FLOOR, cache_size: int = 65536):
        self.floor = floor
        self._cache: dict[str, Analysis] = {}
        self._cache_size = cache_size

    @property
    def candidate_floor(self) -> float:
        """The cosine down to which callers should fetch candidate pairs."""
        return self.floor

    def analyse(self, text: str) -> Analysis:
        """The slots of one text (cached by text)."""
        a = self._cache.get(text)
        if a is None:
            a = analyse_text(text)
            self._cache_put(text, a)
        return a

    def _cache_put(self, text: str, a: Analysis) -> None:
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[text] = a

    @property
    def analysis_version(self) -> str:
        return analysis_version()

    def analysis_bytes(self, text: str) -> bytes:
        """The analysis of a text as bytes, for a caller to keep (see `remember`)."""
        return dump_analysis(self.analyse(text))

    def remember(self, text: str, blob: bytes) -> bool:
        """Take a kept analysis of `text` instead of analysing it again.
        False (and nothing cached) when the bytes are not an analysis of that text."""
        try:
            a = load_analysis(blob)
        except ValueError:
            return False
        if a.text != text:
            return False
        self._cache_put(text, a)
        return True

    def judge(self, a: str, b: str, similarity: float) -> Verdict:
        sim = float(similarity)
        if not sim >= self.floor:  # also catches NaN
            return Verdict("independent", 0.95, f"Cosine {sim:.2f} is below the candidate floor {self.floor:.2f}.")
        return self.compare(self.analyse(a), self.analyse(b), sim)

    def compare(self, A: Analysis, B: Analysis, sim: float) -> Verdict:
        matched: list[str] = []
        clashed: list[str] = []

        # 1. object identity: same kind of object, different identifiers
        diff = []
        shared_obj = False
        for head, va in A.ids.items():
            vb = B.ids.get(head)
            if vb is None:
                continue
            if va & vb:
                shared_obj = True
                matched.append(f"object:{head} {sorted(va & vb)[0]}")
            else:
                diff.append(f"{head} {sorted(va)[0]} vs {head} {sorted(vb)[0]}")
        if A.all_ids & B.all_ids:
            shared_obj = True
            for x in sorted(A.all_ids & B.all_ids):
                tag = f"object:{x}"
                if tag not in matched:
                    matched.append(tag)
        if A.owners and B.owners:
            if A.owners & B.owners:
                shared_obj = True
                matched.append(f"owner:{sorted(A.owners & B.owners)[0]}")
            else:
                diff.append(f"{sorted(A.owners)[0]}'s vs {sorted(B.owners)[0]}'s")
        if A.subject_places and B.subject_places and not any(_places_compatible(x, y) for x in A.subject_places for y in B.subject_places):
            diff.append(f"{' '.join(sorted(A.subject_places[0]))} vs {' '.join(sorted(B.subject_places[0]))}")
        if diff:
            return _verdict("independent", 0.8, f"Different objects that share vocabulary: {'; '.join(diff)}.", matched, [f"object:{d}" for d in diff])

        shared_people = bool(A.people & B.people)
        persons_shared = bool((A.people | A.owners) & (B.people | B.owners))
        subj_overlap = bool(A.subject & B.subject)
        same_object = shared_obj or subj_overlap or persons_shared
        # different subject words on both sides, neither found anywhere in the
        # other text: "telemetry service" vs "scheduler service"
        only_a, only_b = A.subject - B.subject, B.subject - A.subject
        substitution = bool(only_a and only_b and not (only_a & B.content) and not (only_b & A.content))
        claims_a, claims_b = A.predicate or A.attributes, B.predicate or B.attributes
        coverage = len(claims_a & claims_b) / (min(len(claims_a), len(claims_b)) or 1)
        same_claim = len(A.predicate & B.predicate) / (len(A.predicate | B.predicate) or 1)

        topic = sim >= TOPIC_COSINE or (same_object or coverage >= 0.5) and sim >= self.floor
        if not topic:
            return _verdict("independent", 0.7, f"Different topics: cosine {sim:.2f} and no shared object.", matched, clashed)

        # 2. retraction
        if A.retracts != B.retracts:
            who = "second" if B.retracts else "first"
            clashed.append("retraction")
            return _verdict("destructive", 0.8, f"The {who} memory retracts what the other states.", matched, clashed)

        # 3. slots
        _compare_quantities(A.quantities, B.quantities, matched, clashed)
        if A.times and B.times:
            if A.times & B.times:
                ta, tb = A.time_text[0], B.time_text[0]
                matched.append(f"time:{ta} = {tb}" if ta != tb else f"time:{ta}")
            else:
                clashed.append(f"time:{A.time_text[0]} vs {B.time_text[0]}")
        for kind_, da in A.days.items():
            db = B.days.get(kind_)
            if db is None:
                continue
            if da & db:
                matched.append(f"day:{_fmt_day(kind_, sorted(da & db, key=str)[0])}")
            else:
                clashed.append(f"day:{_fmt_day(kind_, sorted(da, key=str)[0])} vs {_fmt_day(kind_, sorted(db, key=str)[0])}")
        if A.places and B.places:
            if any(_places_compatible(x, y) for x in A.places for y in B.places):
                matched.append("place:" + " ".join(sorted(next(x for x in A.places if any(_places_compatible(x, y) for y in B.places)))))
            else:
                clashed.append(f"place:{' '.join(sorted(A.places[0]))} vs {' '.join(sorted(B.places[0]))}")
        if A.people and B.people:
            if shared_people:
                matched.append(f"person:{sorted(A.people & B.people)[0]}")
            elif A.personal or B.personal:
                return _verdict("independent", 0.65, f"Different people ({sorted(A.people)[0]}, {sorted(B.people)[0]}) with the same kind of condition.", matched, [])
            else:
                clashed.append(f"person:{sorted(A.people)[0]} vs {sorted(B.people)[0]}")
        elif A.roles and B.roles and not (A.people or B.people):
            if A.roles & B.roles:
                matched.append(f"role:{sorted(A.roles & B.roles)[0]}")
            else:
                clashed.append(f"role:{sorted(A.roles)[0]} vs {sorted(B.roles)[0]}")
        for axis, pa in A.axes.items():
            pb = B.axes.get(axis)
            if pb is None:
                continue
            if pa & pb:
                matched.append(f"state:{axis}")
            else:
                clashed.append(f"state:{A.axis_words.get(axis, axis)} vs {B.axis_words.get(axis, axis)}")
        neg_clash = (A.negated & B.positive) | (B.negated & A.positive)
        if neg_clash:
            clashed.append(f"negation:{sorted(neg_clash)[0]}")

        # 4. decide
        if A.hedged != B.hedged:
            who = "first" if A.hedged else "second"
            return _verdict("partial", 0.65, f"The {who} memory only hedges what the other states.", matched, clashed)
        if clashed:
            if substitution and not (A.people or B.people or A.roles or B.roles) and not any(c.startswith(("number", "time", "day", "place")) for c in clashed) and sim < SUBSTITUTION_COSINE:
                return _verdict("independent", 0.55, "Different subjects: their states do not bear on the same thing.", matched, [])
            conf = 0.75 + 0.05 * min(3, len(clashed)) if sim >= TOPIC_COSINE else 0.6
            return _verdict("destructive", conf, f"They contradict each other on {_say(clashed)}.", matched, clashed)
        if A.qualified != B.qualified:
            who = "first" if A.qualified else "second"
            return _verdict("partial", 0.6, f"The {who} memory restricts the other's claim.", matched, clashed)

        slot_match = any(m.startswith(("number", "time", "day", "state", "place")) for m in matched)
        if substitution:
            if same_claim >= 0.5 or (sim < TOPIC_COSINE and not slot_match):
                return _verdict("independent", 0.6, "The same statement about different subjects.", matched, clashed)
        if same_object and A.attributes and B.attributes and not (A.attributes & B.attributes) and not slot_match:
            what = f"{sorted(A.attributes)[0]} vs {sorted(B.attributes)[0]}"
            return _verdict("partial", 0.6, f"Same object, different attributes ({what}).", matched, clashed)
        if slot_match or coverage >= 0.6 or sim >= PARAPHRASE_COSINE:
            conf = 0.6 + 0.4 * max(0.0, min(1.0, (sim - TOPIC_COSINE) / (1 - TOPIC_COSINE)))
            what = f"on {_say(matched)}" if matched else f"(cosine {sim:.2f}, no slot clashes)"
            return _verdict("constructive", conf, f"They agree {what}.", matched, clashed)
        if same_object:
            shared = ", ".join(m.partition(":")[2] for m in matched if m.startswith(("object", "owner", "person"))) or "the subject"
            return _verdict("partial", 0.55, f"Same object ({shared}), different attributes.", matched, clashed)
        return _verdict("independent", 0.5, f"Nothing asserted in common (cosine {sim:.2f}).", matched, clashed)


def _say(tags) -> str:
    """ "number:101 kPa vs 87 kPa" -> "number (101 kPa vs 87 kPa)", joined for a sentence."""
    parts = []
    for t in tags:
        slot, _, detail = t.partition(":")
        parts.append(f"{slot} ({detail})" if detail else slot)
    return ", ".join(parts)


def _fmt_day(kind_: str, v) -> str:
    if kind_ == "sol":
        return f"sol {v}"
    if kind_ == "date":
        return f"{v[0]:02d}-{v[1]:02d}"
    if kind_ == "relative":
        return {0: "today", 1: "tomorrow", -1: "yesterday"}.get(v, f"day {v:+d}")
    return str(v)


# ------------------------------------------------------------- plug-in ---


class CallbackJudge:
    """Wrap any callable ``(a, b, similarity) -> (relation, confidence, reason)``.

    Use it to plug an NLI model or an LLM into the merge. The callable's
    output is validated: the relation must be one of `RELATIONS`, the
    confidence a number in [0, 1], the reason a non-empty string; anything
    else raises `JudgeOutputError`. With ``floor`` set, pairs below that
    cosine are answered "independent" without calling it.
    """

    def __init__(self, fn: Callable[[str, str, float], Sequence], *, floor: float | None = None, name: str | None = None):
        if not callable(fn):
            raise TypeError("CallbackJudge needs a callable")
        self._fn = fn
        self.floor = floor
        self.name = name or getattr(fn, "__name__", "callback")

    @property
    def candidate_floor(self) -> float:
        """The cosine down to which callers should fetch candidate pairs."""
        return CANDIDATE_FLOOR if self.floor is None else self.floor

    def judge(self, a: str, b: str, similarity: float) -> Verdict:
        sim = float(similarity)
        if self.floor is not None and not sim >= self.floor:
            return Verdict("independent", 0.95, f"Cosine {sim:.2f} is below the candidate floor {self.floor:.2f}.")
        out = self._fn(a, b, sim)
        if isinstance(out, Verdict):
            out = (out.relation, out.confidence, out.reason)
        if not isinstance(out, (tuple, list)) or len(out) != 3:
            raise JudgeOutputError(f"judge {self.name} must return (relation, confidence, reason), got {out!r:.80}")
        relation, confidence, reason = out
        if relation not in RELATIONS:
            raise JudgeOutputError(f"judge {self.name} returned relation {relation!r}; expected one of {', '.join(RELATIONS)}")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 <= float(confidence) <= 1.0:
            raise JudgeOutputError(f"judge {self.name} returned confidence {confidence!r}; expected a number in [0, 1]")
        if not isinstance(reason, str) or not reason.strip():
            raise JudgeOutputError(f"judge {self.name} returned an empty reason")
        return Verdict(relation, float(confidence), reason.strip())


_DEFAULT_JUDGE: RuleJudge | None = None


def default_judge() -> RuleJudge:
    """The process-wide RuleJudge (its analysis cache is shared)."""
    global _DEFAULT_JUDGE
    if _DEFAULT_JUDGE is None:
        _DEFAULT_JUDGE = RuleJudge()
    return _DEFAULT_JUDGE


def judge_texts(a: str, b: str, *, embedder=None, judge: Judge | None = None) -> Verdict:
    """Embed both texts, take their cosine and judge the pair (default: RuleJudge + MiniLM)."""
    if embedder is None:
        from ..embed import default_embedder

        embedder = default_embedder()
    vecs = embedder.embed([a, b])
    sim = float((vecs[0] * vecs[1]).sum())
    return (judge or default_judge()).judge(a, b, sim)
