"""A reviewer opens a dispute on the review page between two claims no merge paired: the
person's side of `challenge`. It becomes an ordinary open dispute in the queue, signed as the
reviewer, and travels to the other agents as any other.

Beside the pump dispute, earth-1 says the greenhouse lights switch off at 22:00 and mars-1
that the greenhouse timer was not touched since sol 200; earth-2 holds both, in no dispute.
"""

from __future__ import annotations

import re

import pytest

from collective.agent import Agent
from test_review_page import earth2_head

pytestmark = pytest.mark.browser

LIGHTS = "The greenhouse lights switch off at 22:00"
TIMER = "Nobody has touched the greenhouse timer since sol 200"
WHY = "the timer log shows the lights on at midnight"


@pytest.fixture
def greenhouse(world, real_embedder) -> dict:
    """The two greenhouse claims, held by earth-2 in no dispute: content -> memory id."""
    stored = {}
    for name, text in (("earth-1", LIGHTS), ("mars-1", TIMER)):
        with Agent.open(name, home=world.home, embedder=real_embedder) as agent:
            stored[text] = agent.store(text).memory.id
            agent.push()
    with Agent.open("earth-2", home=world.home, embedder=real_embedder) as e2:
        e2.pull()
        assert len(e2.disputes(None)) == 1  # the pump's: the merge paired nothing else
    return stored


def pick(page, *memory_ids: str) -> None:
    for memory_id in memory_ids:
        page.check(f"tr.memory[data-memory='{memory_id}'] input[name=memory]")


def test_a_reviewer_opens_a_dispute_between_two_memories_and_it_joins_the_queue(
        page, served, world, greenhouse, real_embedder):
    page.goto(served.url + "/")
    page.click("header >> text=Memories")
    page.fill("#memory-q", "greenhouse lights timer")
    page.click("#memory-search button")
    page.wait_for_url(re.compile(r"/memories\?q="))
    shown = page.locator("tr.memory .content").all_inner_texts()
    assert any(LIGHTS in t for t in shown) and any(TIMER in t for t in shown)
    pick(page, greenhouse[LIGHTS], greenhouse[TIMER])
    page.fill("#why", WHY)
    page.click("#open")
    page.wait_for_url(re.compile(r"/disputes/[0-9a-f]+\?done=opened"))
    assert page.locator("#notice").inner_text() == "Dispute opened under ana: it is escalated, in the queue with the others."
    assert page.locator("#reach").inner_text().startswith("earth-2 holds it now, and the commons has it already; "
                                                          "earth-1 and mars-1 take it at their next pull")
    assert page.locator("#dispute-status").inner_text() == "escalated"
    assert sorted(page.locator(".claim").all_inner_texts()) == sorted([LIGHTS, TIMER])
    opened = page.locator("#reopened").inner_text()
    assert opened.startswith("Opened by ana") and WHY in opened
    assert page.locator("form#verdict").count() == 1  # decided as any other
    # in the queue, escalated first, with who opened it
    page.goto(served.url + "/")
    rows = page.locator("tr.dispute")
    assert rows.count() == 2
    assert LIGHTS in rows.first.inner_text() and "opened by ana" in rows.first.locator("td.verdict").inner_text()
    with Agent.open("earth-2", home=world.home) as e2:
        found = next(d for d in e2.disputes("open") if d["status"] == "escalated" and d["reopened"])
        (case,) = [e2.case(c) for c in found["cases"]]
        ana_key = {r["name"]: r["public_key"] for r in e2.reviewers()}["ana"]
        assert (case["resolution"]["by"], case["resolution"]["reviewer_key"], case["resolution"]["note"]) == (
            "ana", ana_key, WHY)  # signed as the reviewer
        assert case["opened_by"] == "earth-2"  # the case itself, as every agent opens one
        assert all(e2.get(m).disputed for m in greenhouse.values())
    # an ordinary open dispute elsewhere too: mars-1 takes it at its next pull
    with Agent.open("mars-1", home=world.home, embedder=real_embedder) as m1:
        pulled = m1.pull()
        there = [d for d in m1.disputes("open") if d["dispute"] == found["dispute"]]
        assert [(d["status"], d["reopened"]["by"], d["reopened"]["opens"]) for d in there] == [
            ("escalated", "ana", True)]
        # news as a dispute opened, not as a verdict withdrawn
        assert pulled["cases_taken"]["reopened"] == [] and found["dispute"] in pulled["cases_taken"]["opened"]


def test_a_dispute_a_reviewer_opened_takes_a_verdict_like_any_other(page, served, world, greenhouse):
    page.goto(served.url + "/memories?q=greenhouse")
    pick(page, greenhouse[LIGHTS], greenhouse[TIMER])
    page.fill("#why", WHY)
    page.click("#open")
    page.wait_for_url(re.compile(r"/disputes/"))
    keep = next(s for s in "ab" if page.locator(f"#side-{s} .claim").inner_text() == TIMER)
    page.fill("#note", "the log settles it")
    page.click(f"form#verdict button[value={keep}]")
    page.wait_for_selector("#resolution")
    assert page.locator("#dispute-status").inner_text() == "resolved"
    assert "refuted" in page.locator(f"#side-{'b' if keep == 'a' else 'a'} h2").inner_text()


@pytest.mark.parametrize("chosen, said", [
    (("lights",), "memory: pick two memories to dispute (1 picked)"),
    (("safe", "not safe"), "memory: these two claims are in dispute "),
    (("timer", "rover"), "memory: both claims are mars-1's: a dispute is between two agents' claims"),
])
def test_bad_picks_say_why_in_one_line_and_write_nothing(page, served, world, greenhouse, chosen, said):
    ids = {"lights": greenhouse[LIGHTS], "timer": greenhouse[TIMER], "rover": world.rover,
           "safe": world.dispute_memories["safe"], "not safe": world.dispute_memories["not safe"]}
    head = earth2_head(world)
    page.goto(served.url + "/memories")
    pick(page, *(ids[c] for c in chosen))
    page.fill("#why", WHY)
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("#open")
    assert posted.value.status == 400
    assert page.locator("#error").inner_text().startswith(said)
    assert page.locator("#why").input_value() == WHY  # what was typed stays
    assert earth2_head(world) == head
    with Agent.open("earth-2", home=world.home) as e2:
        assert len(e2.disputes(None)) == 1
