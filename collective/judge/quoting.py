"""Quoting a text as written, for the judge's reasons (`reasons`, `signs`).

The readers (`reader`) keep stems and normalised tokens ("saf", "won't" read as
"will not"), so a reason cannot be built from them. Here the raw text is read
again, once per text (cached): its words with their places and its sentences,
a leading label ("Update:") left out. `locate` finds where a reader's finding
is written; `Pair` quotes the claims of two texts, the second's subject said
again as "it" or "they" when it is the first's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import lexicon as L
from .analysis import Analysis
from .text import is_verb, stem

WORD = re.compile(r"\w+(?:['’.:/-]\w+)*")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
_LABEL = re.compile(r"\s*([\w-]+)\s*:\s+")
_CLAUSE_SPLIT = re.compile(r"\s*[;,]\s+|\s+(?=(?:but|while|although|though|whereas|because)\b)")
LONG_CLAIM = 18  # words; a longer sentence is quoted by its clause around the finding
_FUNCTION_WORDS = (L.STOPWORDS | L.DETERMINERS | L.PRONOUNS | L.NEGATORS | L.HEDGES | L.QUALIFIERS
                   | L.LABEL_WORDS | L.APPROXIMATORS)
_KEEP_CAPITAL = frozenset(L.TITLES | set(L.WEEKDAYS) | set(L.MONTHS) - {"may", "march"})
_NOT_FIRST_NAMES = _FUNCTION_WORDS | _KEEP_CAPITAL  # capitalised words before a surname that are no first name
_ABBREVIATIONS = frozenset({"dr", "mr", "mrs", "ms", "mx", "prof", "capt", "cmdr", "cdr", "lt", "sgt", "st"})
_PLURAL_VERBS = frozenset({"are", "were", "have", "do", "aren't", "weren't", "haven't", "don't"})
_SINGULAR_VERBS = frozenset({"is", "was", "has", "does", "isn't", "wasn't", "hasn't", "doesn't"})
_PEOPLE_WORDS = frozenset(L.ROLE_NOUNS) | L.TITLES | L.PRONOUNS | {"crew", "team", "everyone", "nobody"}


class Reading:
    """One text as written: its words (start, end, lower case), its sentences (start, end),
    each without its end punctuation or a leading label, and the words it capitalises
    inside a sentence (lower case)."""

    __slots__ = ("text", "words", "sentences", "proper")

    def __init__(self, text: str):
        self.text = text
        self.words = [(m.start(), m.end(), m.group().lower()) for m in WORD.finditer(text)]
        self.sentences = []
        start = 0
        for m in _SENTENCE_END.finditer(text):
            before = text[start:m.start()].split()
            if before and before[-1].lower() in _ABBREVIATIONS and m.group() == "." and m.end() < len(text):
                continue  # "Dr. Okafor"
            self._add_sentence(start, m.start())
            start = m.end()
        self._add_sentence(start, len(text))
        starts = {s for s, _ in self.sentences}
        # words written with a capital inside a sentence: names ("Chen", "Jezero")
        self.proper = frozenset(w.removesuffix("'s") for s, e, w in self.words
                                if s not in starts and text[s].isupper() and text[s + 1:e].islower() and w not in _FUNCTION_WORDS)

    def _add_sentence(self, start: int, end: int) -> None:
        label = _LABEL.match(self.text, start, end)
        if label and label.group(1).lower() in L.LABEL_WORDS:
            start = label.end()
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        if start < end:
            self.sentences.append((start, end))


@lru_cache(maxsize=8192)
def reading(text: str) -> Reading:
    return Reading(text)


# --- finding what the readers found, in the text as written


@lru_cache(maxsize=65536)
def find(text: str, phrase: str, article: bool = False) -> tuple[int, int] | None:
    """Where `phrase` is written in `text` (any case, any spacing between its parts)."""
    parts = phrase.split()
    if not parts:
        return None
    body = r"[\s-]*".join(re.escape(p).replace("'", "['’]") for p in parts)
    m = re.search(r"(?<![\w.])" + body + r"(?!\w)", text, re.I)
    return _with_article(text, (m.start(), m.end())) if m and article else (m.span() if m else None)


@lru_cache(maxsize=65536)
def find_stems(text: str, stems: tuple[str, ...], article: bool = False) -> tuple[int, int] | None:
    """The first run of words whose word or stem is one of `stems` ("north ridg" -> "north ridge")."""
    hits = [k for k, (_, _, w) in enumerate(reading(text).words)
            if w in stems or stem(w) in stems or any(p in stems or stem(p) in stems for p in re.split(r"[-/]", w))]
    if not hits:
        return None
    words = reading(text).words
    last = hits[0]
    for k in hits[1:]:
        if k > last + 2:
            break
        last = k
    span = (words[hits[0]][0], words[last][1])
    return _with_article(text, span) if article else span


def _with_article(text: str, span: tuple[int, int]) -> tuple[int, int]:
    m = re.search(r"\b(?:the|a|an|its|their|our)\s+$", text[:span[0]], re.I)
    return (m.start(), span[1]) if m else span


def locate(x: Analysis, slot: str, value: str) -> tuple[int, int] | None:
    """Where a finding of the readers ("number" "16 kPa", "place" "north ridg") is written in x."""
    text = x.text
    if slot in ("number", "time", "state"):
        return find(text, value)
    if slot == "day":
        return _find_weekday(text, value) if value in L.WEEKDAYS.values() else find(text, value)
    if slot == "object" and value.startswith("tag "):
        return _tagged(text, value[4:])
    if slot in ("place", "role", "object"):
        return find(text, value, True) or find_stems(text, tuple(value.split()), True)
    if slot in ("person", "owner"):
        span = find(text, value + ("'s" if slot == "owner" else ""))
        if span and slot == "person":
            m = re.search(r"\b([A-Z]\w*)\.?\s+$", text[:span[0]])
            before = m.group(1).lower() if m else ""
            if m and (before in L.TITLES or before not in _NOT_FIRST_NAMES and m.group().strip()[-1] != "."):
                span = (m.start(), span[1])  # "Dr. Okafor", "Sofia Park"
        return span
    if slot == "negation":
        return find_stems(text, (value,))
    return None


def _tagged(text: str, ident: str) -> tuple[int, int] | None:
    """A tag ("P-101") with the noun that names what it tags: "pump P-101", "the P-101 feed pump"."""
    span = find(text, ident)
    if span is None:
        return None
    words = reading(text).words
    k = next(i for i, (s, _, _) in enumerate(words) if s >= span[0])
    if k > 0 and _noun(words[k - 1][2], words[k][2]):
        return words[k - 1][0], span[1]
    end = k
    while end + 1 < len(words) and end - k < 2 and _noun(words[end + 1][2], _at(words, end + 2)):
        end += 1
    return _with_article(text, (span[0], words[end][1]))


def _noun(w: str, after: str) -> bool:
    return w not in _FUNCTION_WORDS and not verb_like(w, after)


def _at(words: list, k: int) -> str:
    return words[k][2] if k < len(words) else ""


def _find_weekday(text: str, short: str) -> tuple[int, int] | None:
    for start, end, w in reading(text).words:
        if L.WEEKDAYS.get(w.removesuffix("s")) == short or L.WEEKDAY_ABBREV.get(text[start:end]) == short:
            return start, end
    return None


# --- quoting


class Pair:
    """Two analysed texts, a and b, and the names either holds (kept capitalised, never "it")."""

    __slots__ = ("a", "b", "_names")

    def __init__(self, a: Analysis, b: Analysis):
        self.a, self.b = a, b
        self._names: frozenset | None = None

    @property
    def names(self) -> frozenset:
        if self._names is None:
            a, b = self.a, self.b
            self._names = a.people | a.owners | b.people | b.owners | reading(a.text).proper | reading(b.text).proper
        return self._names

    def claim(self, x: Analysis, at: tuple[int, int] | None = None) -> str:
        """The sentence of x that holds the span `at` (else its first), its clause only when long."""
        return self.decap(_claim(x.text, at))

    def quote(self, x: Analysis, span: tuple[int, int]) -> str:
        return self.decap(x.text[span[0]:span[1]])

    def decap(self, fragment: str) -> str:
        """A fragment to stand inside a sentence: its first word in lower case unless it is a
        name, a title, a weekday, a month or an acronym ("The pump" -> "the pump", "EVA" stays)."""
        first = _capital(fragment)
        if first is None or first[1] and first[0] in self.names:
            return fragment
        return fragment[:len(first[0])].lower() + fragment[len(first[0]):]

    def shorten(self, first: str, second: str) -> str:
        """The second of two claims about one subject, the subject said again as "it" or "they":
        ("the pump is safe", "the pump is not safe") -> "it is not safe". People are named again."""
        cut = _subject_cut(first, second)
        if cut is None or cut[0] in self.names:
            return second
        return cut[1] + " " + second[cut[2]:]

    def sides(self, at_a=None, at_b=None) -> tuple[str, str]:
        """What a says and what b says (b's subject as a pronoun when it is a's)."""
        x = self.claim(self.a, at_a)
        return x, self.shorten(x, self.claim(self.b, at_b))

    def both_say(self, at_a=None, at_b=None) -> str:
        """ "a says X; b says Y" """
        x, y = self.sides(at_a, at_b)
        return f"a says {x}; b says {y}"


@lru_cache(maxsize=65536)
def _capital(fragment: str) -> tuple[str, bool] | None:
    """The fragment's first word (possessive aside) when it may go to lower case, and whether
    only a name keeps it; None when it stays as written."""
    m = WORD.match(fragment) if fragment[:1].isupper() else None
    if not m or m.group() == "I" or m.group().startswith(("I'", "I’")):
        return None
    w = m.group()
    low = w.lower()
    if low in _FUNCTION_WORDS:
        return low, False
    if any(c.isupper() or c.isdigit() for c in w[1:]) or low in _KEEP_CAPITAL:
        return None
    return low.removesuffix("'s").removesuffix("’s"), True


@lru_cache(maxsize=65536)
def _subject_cut(first: str, second: str) -> tuple[str, str, int] | None:
    """Where the second claim's predicate starts when both claims share their subject: (the
    subject's head word, "it" or "they", the predicate's first character); None when not."""
    wa, wb = [w.lower() for w in WORD.findall(first)] + ["", ""], list(WORD.finditer(second))
    lb = [m.group().lower() for m in wb] + ["", ""]
    shared = 0
    while shared < min(len(wa), len(lb)) - 2 and wa[shared] == lb[shared]:
        shared += 1
    # the subject: the shared words before a verb on both sides where the claims part
    n = next((k for k in range(1, shared + 1)
              if verb_like(wa[k], wa[k + 1]) and verb_like(lb[k], lb[k + 1]) and _parts_at(wa, lb, k)), 0)
    if not n:
        return None
    head = wa[n - 1].removesuffix("'s")
    if not (n >= 2 or wa[0] in L.DETERMINERS) or wa[0] in L.PRONOUNS or head in _PEOPLE_WORDS:
        return None
    verb = lb[n]
    if verb in _PLURAL_VERBS:
        pronoun = "they"
    elif verb in _SINGULAR_VERBS or verb.endswith("s") and not verb.endswith("ss"):
        pronoun = "it"
    else:
        pronoun = "they" if head.endswith("s") and not head.endswith(("ss", "us", "is")) else "it"
    return head, pronoun, wb[n].start()


@lru_cache(maxsize=65536)
def _claim(text: str, at: tuple[int, int] | None) -> str:
    r = reading(text)
    if not r.sentences:
        return text.strip()
    start, end = r.sentences[0]
    if at is not None:
        start, end = next(((s, e) for s, e in r.sentences if s <= at[0] < e), (start, end))
        sentence = text[start:end]
        if len(sentence.split()) > LONG_CLAIM:
            start, end = _clause(sentence, at[0] - start, start)
    return text[start:end].replace(";", ",")  # one "a says ...; b says ..." per reason


def _clause(sentence: str, at: int, offset: int) -> tuple[int, int]:
    """The clause of a long sentence around the character `at` (a clause of three words or more)."""
    cuts = [0] + [m.end() for m in _CLAUSE_SPLIT.finditer(sentence)] + [len(sentence) + 1]
    for lo, hi in zip(cuts, cuts[1:]):
        if lo <= at < hi:
            piece = sentence[lo:hi].rstrip(" ,;")
            if len(piece.split()) >= 3:
                return offset + lo, offset + lo + len(piece)
    return offset, offset + len(sentence)


def _parts_at(wa: list[str], wb: list[str], n: int) -> bool:
    """Whether two claims part at their verbs, word n: other verbs, one auxiliary, or one
    inflected verb with other words after it ("the seal leaks" / "the seal leaks slowly");
    not a noun that can be a verb ("the seal needs", "the tests pass")."""
    w = wa[n]
    if w != wb[n] or w in L.AUXILIARIES:
        return True
    return (w in L.IRREGULAR_PAST or w.endswith(("s", "ed"))) and wa[n + 1] != wb[n + 1]


def verb_like(w: str, after: str = "") -> bool:
    """Whether a word can start a predicate, as the readers' main verb does (`clauses`): a verb,
    a past form, "not", a hedge or an adverb; not a word before an auxiliary ("the deploy was")."""
    if after in L.TRUE_AUXILIARIES and w not in L.TRUE_AUXILIARIES:
        return False
    return (is_verb(w) or w in L.IRREGULAR_PAST or w in L.NEGATORS or w in L.HEDGES
            or "'" not in w and (w.endswith("ly") or len(w) > 4 and w.endswith("ed")))
