"""How the review page words things: the diff of two claims, times, ids, the judge's numbers."""

from __future__ import annotations

import math
from datetime import datetime, timezone

from collective.agent_review import ReviewVerbs
from collective.review.present import ago, closeness, exact, short, stances, standing, word_diff

stance_of = ReviewVerbs.stance_of

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)


def test_the_diff_marks_only_the_words_that_differ_on_the_side_that_has_them():
    a, b = word_diff("The pump in module C is safe", "The pump in module D is not safe")
    assert [w for kind, w in a if kind != "same"] == ["C"]
    assert [(kind, w) for kind, w in b if kind != "same"] == [("new", "D"), ("new", "not")]
    assert " ".join(w for _, w in a) == "The pump in module C is safe"  # nothing lost from either side
    assert " ".join(w for _, w in b) == "The pump in module D is not safe"
    same, _ = word_diff("Valve 7 is OPEN", "valve 7 is open")
    assert [kind for kind, _ in same] == ["same"]  # case is not a difference of claim


def test_times_read_as_a_person_says_them_and_exactly_on_hover():
    assert ago("2026-12-02T11:59:30+00:00", NOW) == "just now"
    assert ago("2026-12-02T11:55:00Z", NOW) == "5 min ago"
    assert ago("2026-12-02T09:00:00+00:00", NOW) == "3 h ago"
    assert ago("2026-11-30T12:00:00+00:00", NOW) == "2 days ago"
    assert ago("2026-12-01T12:00:00+00:00", NOW) == "1 day ago"
    assert ago("not a time", NOW) == "not a time" and ago(None, NOW) == ""
    assert exact("2026-12-02T09:00:00.123456+00:00") == "2026-12-02 09:00:00 UTC"


def test_ids_are_short_and_tell_apart_uuids_made_together():
    first, second = "01a237c2-4dda-7dc6-8689-6dac7536a9bc", "01a237c2-4dda-7dc6-8689-6dac7536b111"
    assert short(first) != short(second) and len(short(first)) == 8
    assert short("c5973e7a9d0f1e2b") == "c5973e7a"


def test_the_judges_numbers_in_words():
    assert closeness(0.98) == "almost the same words" and closeness(0.3) == "loosely related"
    assert stances(0.0, math.pi).startswith("opposite") and stances(math.pi, 0.0).startswith("opposite")
    assert stances(0.0, 2 * math.pi).startswith("the same") and stances(0.0, 1.2).startswith("one is less certain")


def test_the_stance_line_is_the_claims_own_stances_not_the_judges_relation():
    """Two claims that each affirm something are not "opposite" because the judge disputes them."""
    kotlin = stance_of("Harbor's backend is written in Kotlin", None, None)
    postgres = stance_of("Harbor's database is PostgreSQL", None, None)
    assert stances(kotlin, postgres).startswith("the same stance")
    safe, unsafe = (stance_of(t, None, None) for t in ("The pump is safe", "The pump is not safe"))
    assert stances(safe, unsafe).startswith("opposite")  # the wording's own stances
    denied = stance_of("The pump is safe", "deny", math.pi)  # the writer's explicit stance wins
    assert stances(safe, denied).startswith("opposite")
    assert stances(safe, stance_of("The pump might be safe", None, None)).startswith("one is less certain")


def test_each_agent_standing_with_a_claim_is_counted_once_with_its_own_words_where_they_differ():
    claim = "Harbor's backend is written in Kotlin"
    copies = [{"memory": "e29a0b77", "origin_agent": "tracker"}, {"memory": "c0ffee11", "origin_agent": "notes"}]
    texts = {"e29a0b77": "Harbor's server side is Kotlin on the JVM", "c0ffee11": "harbor's backend is  written in Kotlin"}
    found = standing("tracker", claim, copies, texts)
    assert [w["agent"] for w in found] == ["tracker", "notes"]  # tracker once, though it holds two rows
    assert found[0]["said_it"] and not found[1]["said_it"]
    assert found[0]["rows"] == [{"memory": "e29a0b77", "text": "Harbor's server side is Kotlin on the JVM"}]
    assert found[1]["rows"] == [{"memory": "c0ffee11", "text": None}]  # the same words: "the same claim"
    assert standing("tracker", claim, [], {}) == [{"agent": "tracker", "said_it": True, "rows": []}]
