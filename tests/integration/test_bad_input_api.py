"""The API refuses bad arguments with BadInput (exit 2 on the CLI) and writes nothing."""

from __future__ import annotations

import re

import pytest

from collective.errors import BadInput

BAD_STORES = [
    ({"tags": "abc"}, "tags"),
    ({"tags": ["ok", 7]}, "tag"),
    ({"tags": ["\udcff"]}, "tag"),
    ({"importance": True}, "importance"),
    ({"importance": "0.5"}, "importance"),
    ({"phase": "1.0"}, "phase"),
    ({"stance": ["deny"]}, "stance"),
    ({"category": 3}, "category"),
    ({"importance": 10**400}, "importance"),
    ({"phase": -10**400}, "phase"),
]


def written(agent) -> tuple:
    return agent.repo.head(agent.branch), agent.repo.count("memories")


@pytest.mark.parametrize("kwargs, field", BAD_STORES, ids=[f for _, f in BAD_STORES])
def test_store_refuses_ill_typed_arguments(agent, kwargs, field):
    before = written(agent)
    with pytest.raises(BadInput) as e:
        agent.store("the hatch seal was checked", **kwargs)
    assert e.value.field == field
    assert written(agent) == before


@pytest.mark.parametrize("content", ["a NUL \x00 here", "not UTF-8 \udcff", "half an emoji \ud83d"])
def test_text_that_no_engine_takes_is_bad_input(agent, content):
    before = written(agent)
    with pytest.raises(BadInput) as e:
        agent.store(content)
    assert e.value.field == "content" and written(agent) == before
    with pytest.raises(BadInput):
        agent.recall(content)


def test_store_many_refuses_an_unknown_key_before_writing_any(agent):
    before = written(agent)
    with pytest.raises(BadInput, match="unknown key 'colour'"):
        agent.store_many([{"content": "first, valid"}, {"content": "second", "colour": "red"}])
    with pytest.raises(BadInput, match="memories"):
        agent.store_many(None)
    assert written(agent) == before


@pytest.mark.parametrize("call", [
    lambda a: a.get("\udcff"),
    lambda a: a.forget("id-\udcff"),
    lambda a: a.trust_ledger("mars-\udcff"),
    lambda a: a.case("\udcff"),
    lambda a: a.add_remote("origin", "file:///tmp/\udcff/commons.db"),
    lambda a: a.log(10**20),
    lambda a: a.log(True),
    lambda a: a.recall("x", k=10**20),
    lambda a: a.recall("x", as_of=5),
    lambda a: a.get("x", as_of=5),
    lambda a: a.trust_scores(as_of=["main"]),
    lambda a: a.add_remote(5, "file:///tmp/commons.db"),
    lambda a: a.add_remote("origin", 5),
    lambda a: a.push(["origin"]),
    lambda a: a.add_reviewer(5, "key"),
], ids=["get", "forget", "trust", "case", "remote", "log-huge", "log-bool", "recall-k", "recall-as-of", "get-as-of",
        "trust-as-of", "remote-name", "remote-url", "push-remote", "reviewer-name"])
def test_lookups_with_unusable_arguments_are_bad_input(agent, call):
    before = written(agent)
    with pytest.raises(BadInput):
        call(agent)
    assert written(agent) == before


@pytest.mark.parametrize("peer", ["a\nb", "  \t\n", ""])
def test_a_malformed_agent_id_is_said_malformed_and_quoted(agent, peer):
    for call in (agent.trust_ledger, lambda p: agent.decide_key(p, accept=True)):
        with pytest.raises(BadInput) as e:
            call(peer)
        assert str(e.value) == f"agent: {peer!r} is not a valid agent id (expected [a-z0-9][a-z0-9._-]{{0,63}})"


@pytest.mark.parametrize("call", [
    lambda a, big: a.get(big), lambda a, big: a.trust_ledger(big), lambda a, big: a.recall("x", as_of=big),
    lambda a, big: a.list_memories(tags=[big]), lambda a, big: a.push(big), lambda a, big: a.case(big),
], ids=["memory", "agent", "as-of", "tag", "remote", "case"])
def test_an_error_quotes_a_huge_value_cut_to_its_first_characters(agent, call):
    big = "x" * (2 * 1024 * 1024)
    with pytest.raises(BadInput) as e:
        call(agent, big)
    assert len(str(e.value)) < 300 and re.search(r"[^x]x{80}…'? \(2097152 characters\)", str(e.value))


def test_a_tiny_importance_is_kept_and_shown_positive(agent):
    stored = agent.store("The west airlock pump is leaking", importance=1e-7).memory
    assert agent.get(stored.id).amplitude == pytest.approx(1e-7)
    assert agent.show(stored.id)["amplitude"] == pytest.approx(1e-7)
    assert agent.recall("The west airlock pump is leaking") == []  # strength under the fade threshold: faded
    (hit,) = agent.recall("The west airlock pump is leaking", include_faded=True)
    assert hit.to_dict()["amplitude"] == pytest.approx(1e-7)
