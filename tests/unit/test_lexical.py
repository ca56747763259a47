"""The lexical index: terms, BM25 shares, dead labels, the tail and its compaction, and the saved form."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collective.index.lexical import B, K1, LexicalIndex, document_terms, terms

TEXTS = ["The coolant pump in module C is safe to operate",
         "The user prefers dark mode in every editor",
         "Pumps on deck 3 were replaced in March",
         "Lunch is served at noon in the galley"]


def built(texts=TEXTS, tags=None) -> LexicalIndex:
    index = LexicalIndex()
    tags = tags or [[] for _ in texts]
    index.add(range(len(texts)), [document_terms(t, g) for t, g in zip(texts, tags)], tags)
    return index


def live(n: int) -> np.ndarray:
    return np.ones(n, dtype=bool)


def test_terms_are_stemmed_words_without_stop_words():
    assert terms("The pumps were operating, and 412 K!") == ["pump", "oper", "412", "k"]
    assert terms("preferred") == terms("prefers") == ["prefer"]
    assert terms("what is it?") == []
    # numbers, in any script, are their own terms (the stemmer is not asked), cut as words are
    assert terms("report 20451 at ٤١٢") == ["report", "20451", "٤١٢"]
    assert terms("1" * 40) == ["1" * 32]


def test_a_one_word_query_finds_the_memories_holding_it_and_no_other():
    scores = built().scores("pump", live(4))
    assert scores[0] > 0 and scores[2] > 0 and scores[1] == scores[3] == 0


def test_the_score_is_bm25_divided_by_the_query_weight():
    """Checked by hand against the textbook formula for a two-word query."""
    index = built()
    got = index.scores("coolant galley", live(4))
    n = 4
    idf = math.log(1 + (n - 1 + 0.5) / 1.5)  # each word is in one memory
    lengths = [len(document_terms(t, [])) for t in TEXTS]
    average = sum(lengths) / n
    first = idf * (K1 + 1) / (1 + K1 * (1 - B + B * lengths[0] / average))
    assert got[0] == pytest.approx(first / (2 * idf))
    assert got[1] == 0


def test_a_word_no_memory_holds_still_weighs_in_the_share():
    index = built()
    assert index.scores("coolant theme", live(4))[0] < index.scores("coolant", live(4))[0]


def test_dead_labels_score_nothing_and_leave_the_statistics():
    index = built()
    alive = live(4)
    alive[0] = False
    scores = index.scores("pump coolant deck", alive)
    assert scores[0] == 0 and scores[2] > 0
    without = built(TEXTS[1:]).scores("pump coolant deck", live(3))  # as if it had never been there
    assert scores[1:] == pytest.approx(without)


def test_compaction_changes_no_score_and_drops_the_dead():
    index = built()
    more = ["A second coolant loop was added", "The pump log was rotated"]
    index.add([4, 5], [document_terms(t, []) for t in more], [[], []])
    before = index.scores("coolant pump log", live(6))
    alive = live(6)
    alive[1] = False
    index.compact(alive)
    assert index.scores("coolant pump log", live(6))[[0, 2, 3, 4, 5]] == pytest.approx(before[[0, 2, 3, 4, 5]])


def test_saved_and_loaded_it_scores_the_same(tmp_path):
    index = built(tags=[["hardware"], [], ["hardware", "deck-3"], []])
    index.save(tmp_path / "lexical.npz", live(4))
    again = LexicalIndex.load(tmp_path / "lexical.npz")
    assert again.scores("pump dark galley", live(4)) == pytest.approx(index.scores("pump dark galley", live(4)))
    assert again.tagged("hardware").tolist() == [0, 2] and again.tagged("deck-3").tolist() == [2]
    assert again.tagged("nothing").tolist() == []


def test_tags_are_found_as_words_too():
    index = built(tags=[[], ["ui"], [], []])
    assert index.scores("ui", live(4))[1] > 0


def test_arrays_that_do_not_fit_together_are_refused(tmp_path):
    arrays = built().arrays(live(4))
    arrays["lexical_offsets"] = arrays["lexical_offsets"][:-1]
    with pytest.raises(ValueError):
        LexicalIndex.from_arrays(arrays)
