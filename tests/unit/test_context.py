"""Which memories are neighbours, and what a memory borrows from them (core/context.py)."""

from __future__ import annotations

import numpy as np

from collective.core import context


def test_neighbours_are_one_origins_memories_in_the_order_they_were_stored_and_close_in_time():
    # labels 0..5: origin a at t 0, 0, 10 (a batch, then one more); origin b at 5 and 5 + 31 min;
    # label 5 is not indexed
    labels = np.array([0, 1, 2, 3, 4])
    origins = np.array([0, 0, 1, 0, 1])
    created = np.array([0.0, 0.0, 5.0, 10.0, 5.0 + 31 * 60])
    before, after = context.neighbours(labels, origins, created, 6)
    assert before.tolist() == [-1, 0, -1, 1, -1, -1]
    assert after.tolist() == [1, 3, -1, -1, -1, -1]  # b's two are 31 minutes apart: no neighbours


def test_the_order_within_a_batch_is_the_labels_not_the_order_given():
    before, after = context.neighbours(np.array([2, 0, 1]), np.zeros(3), np.zeros(3), 3)
    assert before.tolist() == [-1, 0, 1] and after.tolist() == [1, 2, -1]


def test_a_memory_borrows_at_most_its_share_of_its_more_relevant_neighbour():
    own = np.array([0.2, 0.9, 0.5])
    before, after = np.array([0.0, 0.2, 0.9]), np.array([0.9, 0.5, 0.0])
    lifted = context.in_context(own, before, after)
    assert lifted.tolist() == [0.9 * 0.7, 0.9, 0.9 * 0.7]
    assert (lifted < np.maximum(before, after)).any() and (lifted >= own).all()


def test_one_memory_or_none_has_no_neighbours():
    for labels in (np.array([], dtype=np.int64), np.array([0])):
        before, after = context.neighbours(labels, np.zeros(len(labels)), np.zeros(len(labels)), 2)
        assert before.tolist() == after.tolist() == [-1, -1]
