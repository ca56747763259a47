"""The lexical half of recall: an inverted index of each memory's words, scored by BM25.

Embeddings see topics, not words: a one-word query ("pump") or a name, a number or a
rare term is found far more surely by the words themselves. The index keeps, per
term, the labels of the memories whose text (content and tags) holds it, under the
same labels as the vector index beside it, so the two are kept and saved together.
It also keeps which labels carry each tag, for recall's and list's tag filter.

Postings are append-only: a replaced memory gets a new label and a removed one is
masked by the caller's `live` array, so adding never rewrites what is there. New
postings go to a tail that a query scans; `compact` sorts them into the main arrays
(and drops dead labels) before a save.

A memory's lexical score is the share of the query's weight it holds (Okapi BM25,
k1 = 1.2, b = 0.75, divided by the sum of the query terms' idf): 1.0 means every
query term, each about as often as in a memory of average length; 0 means none.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from ..model.words import STOPWORDS

K1, B = 1.2, 0.75
MAX_TERM = 32  # longer tokens are cut: no word is that long, and the saved vocabulary stays narrow
TAIL_LIMIT = 200_000  # postings in the tail before an add sorts them in
_WORD = re.compile(r"[^\W_]+")


@functools.lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    if word.isdecimal():  # a number: the stemmer returns it as it is
        return word[:MAX_TERM]
    return _stemmer().stemWord(word)[:MAX_TERM]


@functools.cache
def _stemmer():
    """Snowball's English stemmer, in C (PyStemmer: 1 µs a word where the pure-Python build of
    the same algorithm took 19), loaded when first needed (`cmem store` never needs it)."""
    import Stemmer

    return Stemmer.Stemmer("english")


def terms(text: str) -> list[str]:
    """The index terms of a text: lower-cased words and numbers, stop words left out, stemmed
    (so "pumps" finds "pump", "preferred" finds "prefers")."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def document_terms(content: str, tags: Iterable[str]) -> list[str]:
    """What a memory is found by: its content and its tags."""
    return terms(" ".join([content, *tags]))


class LexicalIndex:
    def __init__(self) -> None:
        self._vocab: dict[str, int] = {}
        self._offsets = np.zeros(1, dtype=np.int64)  # postings of term t: main[offsets[t]:offsets[t + 1]]
        self._main_labels = np.zeros(0, dtype=np.int64)
        self._main_tf = np.zeros(0, dtype=np.float32)
        self._tail: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (term ids, labels, tf), unsorted
        self._tail_cache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._lengths = np.zeros(0, dtype=np.float32)  # terms in each label's text (0: never indexed)
        self._tags: dict[str, list[int]] = {}  # tag -> labels carrying it, exactly as written

    # --- keeping it ------------------------------------------------------
    def add(self, labels: Sequence[int], texts: Sequence[Sequence[str]], tags: Sequence[Sequence[str]]) -> None:
        """Index each label's terms (as `document_terms` gives them) and tags. Labels are new:
        a memory replaced gets a new label, and the old one is dead to the caller."""
        if not len(labels):
            return
        top = int(max(labels)) + 1
        if top > len(self._lengths):
            self._lengths = np.concatenate([self._lengths, np.zeros(top - len(self._lengths), dtype=np.float32)])
        term_ids, owners, counts = [], [], []
        for label, words, marks in zip(labels, texts, tags):
            self._lengths[label] = len(words)
            for tag in marks:
                self._tags.setdefault(tag, []).append(int(label))
            for word, n in _counted(words).items():
                term_ids.append(self._term_id(word))
                owners.append(label)
                counts.append(n)
        self._tail.append((np.array(term_ids, dtype=np.int64), np.array(owners, dtype=np.int64),
                           np.array(counts, dtype=np.float32)))
        self._tail_cache = None
        if sum(len(t[0]) for t in self._tail) > TAIL_LIMIT:
            self.compact(None)

    def _term_id(self, word: str) -> int:
        term = self._vocab.get(word)
        if term is None:
            term = self._vocab[word] = len(self._vocab)
        return term

    def compact(self, live: np.ndarray | None) -> None:
        """Sort the tail into the main postings; with `live`, drop the postings of dead labels."""
        terms_main = np.repeat(np.arange(len(self._offsets) - 1), np.diff(self._offsets))
        tail_terms, tail_labels, tail_tf = self._tail_arrays()
        all_terms = np.concatenate([terms_main, tail_terms])
        all_labels = np.concatenate([self._main_labels, tail_labels])
        all_tf = np.concatenate([self._main_tf, tail_tf])
        if live is not None:
            keep = live[all_labels]
            all_terms, all_labels, all_tf = all_terms[keep], all_labels[keep], all_tf[keep]
        order = np.argsort(all_terms, kind="stable")
        self._offsets = np.concatenate([[0], np.cumsum(np.bincount(all_terms[order], minlength=len(self._vocab)))])
        self._main_labels, self._main_tf = all_labels[order], all_tf[order]
        self._tail, self._tail_cache = [], None
        if live is not None:
            kept = {tag: [label for label in labels if live[label]] for tag, labels in self._tags.items()}
            self._tags = {tag: labels for tag, labels in kept.items() if labels}

    def _tail_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._tail_cache is None:
            if self._tail:
                self._tail_cache = tuple(np.concatenate(part) for part in zip(*self._tail))
            else:
                self._tail_cache = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
        return self._tail_cache

    # --- asking it --------------------------------------------------------
    def tagged(self, tag: str) -> np.ndarray:
        """The labels carrying `tag` (dead ones included: the caller masks them)."""
        return np.array(self._tags.get(tag, []), dtype=np.int64)

    def statistics(self, live: np.ndarray) -> tuple[int, float]:
        """How many labels live, and their average length in terms (what BM25 needs of the
        collection; callers may keep it while `live` stays the same)."""
        alive = int(np.count_nonzero(live))
        lengths = np.zeros(len(live), dtype=np.float32)
        lengths[:min(len(live), len(self._lengths))] = self._lengths[:len(live)]
        return alive, (float(lengths[live].mean()) or 1.0) if alive else 1.0

    def scores(self, query: str, live: np.ndarray, statistics: tuple[int, float] | None = None) -> np.ndarray:
        """Each label's lexical score for `query` (see the module's docstring), as a dense
        array over every label; labels not `live` score 0."""
        out = np.zeros(len(live), dtype=np.float64)
        self.scores_into(out, query, live, statistics)
        return out

    def scores_into(self, out: np.ndarray, query: str, live: np.ndarray,
                    statistics: tuple[int, float] | None = None) -> np.ndarray:
        """`scores` written into `out` (by label, zero where this writes): only the labels that
        hold a query word are written, and returned (sorted). Recall keeps one such array
        between queries instead of making and scanning one of every label each time."""
        asked = list(dict.fromkeys(terms(query)))
        words = [w for w in asked if w in self._vocab]
        alive, average = statistics or self.statistics(live)
        if not words or not alive:
            return np.zeros(0, dtype=np.int64)
        weight = 0.0
        written = []
        for word in words:
            labels, tf = self._postings(self._vocab[word])
            keep = live[labels]
            labels, tf = labels[keep], tf[keep]
            df = len(labels)
            idf = float(np.log(1.0 + (alive - df + 0.5) / (df + 0.5)))
            weight += idf
            saturated = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self._lengths[labels] / average))
            out[labels] += idf * saturated
            written.append(labels)
        # a query word no memory holds still counts in the weight: its memories lack it
        weight += (len(asked) - len(words)) * float(np.log(1.0 + (alive + 0.5) / 0.5))
        if len(written) == 1:
            held = np.sort(written[0])
        else:  # a mask, not np.unique: common words hold thousands of labels each
            marked = np.zeros(len(live), dtype=bool)
            for labels in written:
                marked[labels] = True
            held = np.flatnonzero(marked)
        out[held] /= weight
        return held

    def _postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        if term + 1 < len(self._offsets):
            start, end = self._offsets[term], self._offsets[term + 1]
            labels, tf = self._main_labels[start:end], self._main_tf[start:end]
        else:
            labels, tf = self._main_labels[:0], self._main_tf[:0]
        tail_terms, tail_labels, tail_tf = self._tail_arrays()
        if len(tail_terms):
            mine = tail_terms == term
            if mine.any():
                labels, tf = np.concatenate([labels, tail_labels[mine]]), np.concatenate([tf, tail_tf[mine]])
        return labels, tf

    # --- files -------------------------------------------------------------
    def arrays(self, live: np.ndarray) -> dict[str, np.ndarray]:
        """What a save writes (the tail sorted in, dead labels dropped)."""
        self.compact(live)
        vocab = np.array(list(self._vocab), dtype=f"U{MAX_TERM}")
        names = list(self._tags)
        return {"lexical_vocab": vocab, "lexical_offsets": self._offsets, "lexical_labels": self._main_labels,
                "lexical_tf": self._main_tf, "lexical_lengths": self._lengths,
                "tag_names": np.array(names, dtype="U64"),
                "tag_offsets": np.concatenate([[0], np.cumsum([len(self._tags[n]) for n in names], dtype=np.int64)]),
                "tag_labels": np.array([label for n in names for label in self._tags[n]], dtype=np.int64)}

    @classmethod
    def from_arrays(cls, saved) -> "LexicalIndex":
        """The index `arrays` described; ValueError when the arrays do not fit together."""
        index = cls()
        vocab = [str(w) for w in saved["lexical_vocab"]]
        offsets, labels = saved["lexical_offsets"], saved["lexical_labels"]
        tf, lengths = saved["lexical_tf"], saved["lexical_lengths"]
        if (len(offsets) != len(vocab) + 1 or len(labels) != len(tf) or int(offsets[-1]) != len(labels)
                or (len(labels) and int(labels.max()) >= len(lengths)) or len(set(vocab)) != len(vocab)):
            raise ValueError("the lexical index's arrays do not fit together")
        index._vocab = {w: i for i, w in enumerate(vocab)}
        index._offsets, index._main_labels = offsets.astype(np.int64), labels.astype(np.int64)
        index._main_tf, index._lengths = tf.astype(np.float32), lengths.astype(np.float32)
        names, tag_offsets, tag_labels = saved["tag_names"], saved["tag_offsets"], saved["tag_labels"]
        if len(tag_offsets) != len(names) + 1 or int(tag_offsets[-1]) != len(tag_labels):
            raise ValueError("the tag lists' arrays do not fit together")
        index._tags = {str(n): tag_labels[tag_offsets[i]:tag_offsets[i + 1]].tolist() for i, n in enumerate(names)}
        return index

    def save(self, path: Path, live: np.ndarray) -> None:
        with open(path, "wb") as f:
            np.savez(f, **self.arrays(live))

    @classmethod
    def load(cls, path: Path) -> "LexicalIndex":
        with np.load(path, allow_pickle=False) as saved:
            return cls.from_arrays(saved)


def _counted(words: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    return counts
