"""A memory text as tokens, and the word tests every reader shares (stems, verbs, states).

`tokenise` normalises the text (quotes, contractions, ISO dates, synonyms),
splits it into tokens with a kind each ("n" number, "t" clock time, "d" ISO
date, "w" word, "p" punctuation), and joins spelled-out numbers ("twenty
five" -> "25") and known phrases ("no longer" -> "no_longer") into single
tokens, so the readers see one token per unit of meaning.

The word functions keep caches: the same words recur across thousands of texts.
"""

from __future__ import annotations

import re

from . import lexicon as L

CACHE_LIMIT = 200_000  # word caches are cleared when they grow past this


# --- words


def stem(word: str, _cache: dict = {}) -> str:  # noqa: B006 - deliberate cache
    """A light stem: "pressures" -> "pressur", "ran" -> "run" (irregular forms from the lexicon)."""
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
    if len(_cache) > CACHE_LIMIT:
        _cache.clear()
    _cache[word] = r
    return r


def is_verb(tok: str, _cache: dict = {}) -> bool:  # noqa: B006 - deliberate cache
    """An auxiliary or a known verb (a joined phrase by its first word: "shut_down")."""
    r = _cache.get(tok)
    if r is None:
        head = tok.split("_", 1)[0]
        if len(_cache) > CACHE_LIMIT:
            _cache.clear()
        r = _cache[tok] = head in L.AUXILIARIES or head in L.VERBS
    return r


# word -> (axis, pole) for every state word of the lexicon; the first axis listing a word wins
STATE_INDEX: dict[str, tuple[str, int]] = {}
for _axis, (_pos, _neg) in L.STATE_AXES.items():
    for _w in _pos:
        STATE_INDEX.setdefault(_w, (_axis, 1))
    for _w in _neg:
        STATE_INDEX.setdefault(_w, (_axis, -1))


# --- normalisation

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
_SYNONYM_MAP = {k: v for k, v in L.SYNONYM_PHRASES.items()}
_SYNONYMS = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in sorted(_SYNONYM_MAP, key=len, reverse=True)) + r")\b", re.I)
assert all(k.isascii() and k.islower() for k in _SYNONYM_MAP)  # _has_synonym relies on it


def normalise(text: str) -> str:
    """One spelling for quotes, dashes, "a.m.", contractions, ISO dates, 10^n and synonyms."""
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


# --- tokens

_TOKEN = re.compile(
    r"__date_\d+_\d+"
    r"|\d{1,2}:\d{2}"
    r"|(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    r"|(?<![\w.])-?\d+(?:\.\d+)?"
    r"|[^\W\d_][^\W_]*(?:[-'][^\W_]+)*"
    r"|'s\b|s'(?=\s)"
    r"|[%°³/~:;,.!?()+\-]"
)


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
    if len(_CHUNKS) > CACHE_LIMIT:
        _CHUNKS.clear()
    _CHUNKS[chunk] = r
    return r


def tokenise(text: str) -> tuple[list, list, list]:
    """The tokens of a text as written, lower-cased, and their kinds (three parallel lists)."""
    orig: list[str] = []
    low: list[str] = []
    kind: list[str] = []
    for chunk in normalise(text).split():
        toks, lows, kinds = _CHUNKS.get(chunk) or _chunk_tokens(chunk)
        orig += toks
        low += lows
        kind += kinds
    orig, low, kind = _join_number_words(orig, low, kind)
    return _join_phrases(orig, low, kind)


# --- joining: the two passes copy the untouched tokens between joins in slices

_NUMBER_FIRST = frozenset(k.split()[0] for k in L.NUMBER_WORDS)


def _join_number_words(orig: list, low: list, kind: list) -> tuple[list, list, list]:
    """Spelled-out numbers ("twenty five", "a dozen") become one number token."""
    if _NUMBER_FIRST.isdisjoint(low):
        return orig, low, kind
    out_o: list[str] = []
    out_l: list[str] = []
    out_k: list[str] = []
    done = 0  # tokens before this index are in the output
    for i, w in enumerate(low):
        if i < done or w not in _NUMBER_FIRST or kind[i] != "w":
            continue
        val, j = _number_at(low, kind, i)
        if val is None:
            continue
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


def _number_at(low: list, kind: list, i: int) -> tuple[float | None, int]:
    """The value of the number words starting at i, and the index after them."""
    n = len(low)
    w = low[i]
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
        return None, i
    j = i + span
    # "twenty five", "two hundred"
    if j < n and kind[j] == "w" and low[j] in L.NUMBER_WORDS and val >= 20 and val % 10 == 0 and L.NUMBER_WORDS[low[j]] < 10:
        val += L.NUMBER_WORDS[low[j]]
        j += 1
    if j < n and kind[j] == "w" and low[j] in L.MULTIPLIERS:
        val *= L.MULTIPLIERS[low[j]]
        j += 1
    return val, j


def _build_phrases() -> dict:
    phrases: dict[str, dict[str, list[tuple[list[str], str]]]] = {}  # first word -> second word -> longest first
    sources = (L.NEGATOR_PHRASES + L.HEDGE_PHRASES + L.QUALIFIER_PHRASES + L.STATE_PHRASES
               + L.ROLE_PHRASES + tuple(k for k in L.RELATIVE_DAYS if " " in k)
               + L.LOWER_BOUND_PHRASES + L.UPPER_BOUND_PHRASES + L.JOINED_PHRASES)
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


# joined phrases as the readers meet them
NEGATOR_PHRASE_TOKENS = frozenset(p.replace(" ", "_") for p in L.NEGATOR_PHRASES) | {"clear_of"}
HEDGE_PHRASE_TOKENS = frozenset(p.replace(" ", "_") for p in L.HEDGE_PHRASES)
QUALIFIER_PHRASE_TOKENS = frozenset(p.replace(" ", "_") for p in L.QUALIFIER_PHRASES)
LOWER_BOUND_TOKENS = L.LOWER_BOUNDS | frozenset(p.replace(" ", "_") for p in L.LOWER_BOUND_PHRASES)
UPPER_BOUND_TOKENS = L.UPPER_BOUNDS | frozenset(p.replace(" ", "_") for p in L.UPPER_BOUND_PHRASES)
