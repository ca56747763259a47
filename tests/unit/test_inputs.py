"""API arguments are type-checked, and text is valid UTF-8 without NUL: BadInput, never a crash."""

from __future__ import annotations

import pytest

from collective.errors import BadInput, NotFound, RemoteUnreachable, one_line
from collective.model import (MAX_CONTENT_BYTES, shown_amplitude, text_problem, validate_content, validate_count,
                              validate_note, validate_number, validate_phase, validate_ref, validate_stance,
                              validate_tags, validate_text)
from collective.writer import MemoryInput


@pytest.mark.parametrize("text, problem", [
    ("fine text, ünïcode and emoji 🛰", None),
    ("nul \x00 inside", "NUL character at position 4"),
    ("bad \udcff byte", "byte 0xff at position 4"),
    ("lone \ud800 surrogate", "lone surrogate U+D800 at position 5"),
])
def test_text_problem_names_what_is_wrong(text, problem):
    found = text_problem(text)
    assert (found is None) if problem is None else (problem in found)


@pytest.mark.parametrize("bad", ["a\x00b", "caf\udce9", b"bytes", 3, None])
def test_validate_text_refuses(bad):
    with pytest.raises(BadInput) as e:
        validate_text(bad, "note")
    assert e.value.field == "note"


@pytest.mark.parametrize("bad", ["x\x00y", "x\udcffy", "\ud83d"])
def test_content_with_nul_or_surrogates_is_bad_input(bad):
    with pytest.raises(BadInput) as e:
        validate_content(bad)
    assert e.value.field == "content"


@pytest.mark.parametrize("bad", ["\u200b\u200b", "\x01\x02", " \u200d\ufeff ", "\u2028"],
                         ids=["zero-width", "controls", "joiners", "line-separator"])
def test_content_without_a_visible_character_is_bad_input(bad):
    with pytest.raises(BadInput, match="must be non-empty text"):
        validate_content(bad)


@pytest.mark.parametrize("good", ["\u200bx", "\U0001f600", "\u0301", "-", "42", "日本"])
def test_content_with_any_visible_character_is_kept(good):
    assert validate_content(good) == good.strip()


@pytest.mark.parametrize("bad", ["abc", b"abc", {"a": 1}, 7, ["ok", 3], ["\udcff"], ["a\x00"]])
def test_tags_must_be_a_list_of_strings(bad):
    with pytest.raises(BadInput):
        validate_tags(bad)


@pytest.mark.parametrize("bad", [["\u200b"], ["ok", "\x01\x02"], [" \u200d\ufeff "]])
def test_tags_without_a_visible_character_are_bad_input(bad):
    with pytest.raises(BadInput, match="no visible character") as e:
        validate_tags(bad)
    assert e.value.field == "tag"


@pytest.mark.parametrize("bad, problem", [
    (None, "say why"), ("   ", "say why"), ("\u200b", "no visible character"),
    ("\x07\u200b\u2028", "no visible character"),
    ("y" * (MAX_CONTENT_BYTES + 1), f"longer than {MAX_CONTENT_BYTES} bytes"),
    ("é" * (MAX_CONTENT_BYTES // 2 + 1), "longer"),
])
def test_notes_say_something_visible_within_the_content_cap(bad, problem):
    with pytest.raises(BadInput, match=problem) as e:
        validate_note(bad)
    assert e.value.field == "note" and len(str(e.value)) < 100
    assert validate_note("\u200bchecked") == "\u200bchecked" and validate_note("y" * MAX_CONTENT_BYTES)


@pytest.mark.parametrize("make", [
    lambda v: NotFound("memory", f"no memory with id {v!r}"),
    lambda v: BadInput("agent", f"{v} is not a known peer"),
    lambda v: BadInput("tag", f"tags are non-empty text of at most 64 characters, got {v!r}"),
    lambda v: RemoteUnreachable(v, "connection refused"),
], ids=["quoted", "bare", "quoted-tail", "not-bad-input"])
@pytest.mark.parametrize("value", ["x" * 2_000_000, "a b " * 500_000, "it's " * 1000], ids=["run", "spaces", "quotes"])
def test_an_error_line_quotes_a_long_value_cut_with_its_length(make, value):
    line = one_line(make(value))
    assert len(line) < 1100 and "…" in line
    assert f"({len(value)} characters" in line or "characters in all)" in line


def test_short_values_and_messages_are_left_whole():
    value = "x" * 200
    assert one_line(NotFound("memory", f"no memory with id {value!r}")) == f"memory: no memory with id {value!r}"
    assert str(BadInput("memory", "a1's own memory: an agent can't endorse its own")).endswith("can't endorse its own")


def test_a_positive_amplitude_never_shows_as_zero():
    assert shown_amplitude(1e-7) == 1e-7 and shown_amplitude(0.1234567) == 0.123457 and shown_amplitude(0.0) == 0.0
    assert shown_amplitude(3.3e-9, 4) == 3.3e-9 and shown_amplitude(2.0) == 2.0


def test_tags_as_list_or_tuple():
    assert validate_tags(["a", " b ", "a"]) == ["a", "b"] and validate_tags(("x",)) == ["x"] and validate_tags(None) == []


@pytest.mark.parametrize("bad", [True, False, "0.5", None, [1], complex(1, 0), 10**400, -10**400])
def test_numbers_are_real_numbers_a_float_holds(bad):
    with pytest.raises(BadInput):
        validate_number(bad, "importance")
    with pytest.raises(BadInput):
        validate_phase(bad)


@pytest.mark.parametrize("bad", [0, -1, 10**20, True, 2.0, "3", None])
def test_counts_are_whole_numbers_in_range(bad):
    with pytest.raises(BadInput) as e:
        validate_count(bad, "n", maximum=1000)
    assert e.value.field == "n"


@pytest.mark.parametrize("bad", [["deny"], {"deny": 1}, "\udcff"])
def test_unhashable_or_bad_stances_are_bad_input(bad):
    with pytest.raises(BadInput):
        validate_stance(bad)


def test_memory_input_from_a_mapping_or_its_text():
    item = MemoryInput.of({"content": "x", "tags": ["a"], "importance": 0.7})
    assert item == MemoryInput("x", tags=["a"], importance=0.7)
    assert MemoryInput.batch(["just text", {"content": "more"}]) == [MemoryInput("just text"), MemoryInput("more")]


@pytest.mark.parametrize("bad, field", [({"content": "x", "colour": "red"}, "memory"), ({"tags": []}, "content"),
                                        (42, "memory"), (b"bytes", "memory")])
def test_memory_input_refuses_unknown_keys_and_non_mappings(bad, field):
    with pytest.raises(BadInput) as e:
        MemoryInput.of(bad)
    assert e.value.field == field


@pytest.mark.parametrize("bad", [5, b"main", ["main"], "", "  ", "main\x00", "\udcff"])
def test_refs_are_text(bad):
    with pytest.raises(BadInput) as e:
        validate_ref(bad)
    assert e.value.field == "as-of"
    assert validate_ref(None) is None and validate_ref("main") == "main"
