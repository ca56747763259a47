"""Verdicts on the review page when another reviewer decides too, and when each reaches the agents.

earth-2 holds the pump dispute (earth-1: safe; mars-1: not safe) and is reviewed as ana. In
the `sam` stories earth-1 holds it too, and the reviewer sam decides it there (on earth-1's
own page, or here through the same agent API the page calls) after ana opened hers.
"""

from __future__ import annotations

import re

import pytest

from collective.agent import Agent
from review_support import NOT_PUMP, PUMP
from test_review_page import earth2_head, open_dispute, post_verdict

pytestmark = pytest.mark.browser

CLI_WORDS = re.compile(r"\bcmem\b|(?<![\w-])--[a-z]")


def sam_decides_on_earth1(world, keep_content: str, note: str) -> None:
    """sam keeps the claim saying `keep_content` (or both, with None) on earth-1, shared at once."""
    with Agent.open("earth-1", home=world.home) as e1:
        (dispute,) = e1.disputes("open")
        side = "both" if keep_content is None else next(s for s in "ab" if dispute[s]["content"] == keep_content)
        e1.resolve_dispute(dispute["dispute"], keep=side, note=note, by="sam")


def standing_verdict(agent_id: str, world) -> dict:
    with Agent.open(agent_id, home=world.home) as agent:
        (dispute,) = agent.disputes(None)
        return dispute


def test_a_stale_tab_records_nothing_when_another_reviewer_decided_and_says_whose_verdict_stands(
        page, served, world, sam, real_embedder):
    """ana's tab was opened before sam decided on earth-1's page: her "keep a" is not recorded;
    the page says sam's "both stand" stands (who, what, when) and offers buttons, not a flag."""
    claims = open_dispute(page, served)
    sam_decides_on_earth1(world, None, "two sensors, both right")
    assert post_verdict(page, "a", "pressure test failed") == 409
    standing = page.locator("#standing").inner_text()
    assert "A verdict already stands on this dispute: sam's, keep both" in standing
    assert re.search(r"just now|\d+ min ago", standing) and "two sensors, both right" in standing
    assert "Nothing was recorded: your verdict (keep a, “pressure test failed”) stands nowhere" in standing
    assert page.locator("#standing button").all_inner_texts() == ["Supersede with mine", "Reopen"]
    assert page.locator("#standing input[name=csrf]").count() == 2  # each a form like the others
    assert page.locator("#dispute-status").inner_text() == "resolved"
    assert not CLI_WORDS.search(page.locator("main").inner_text())
    dispute = standing_verdict("earth-2", world)
    assert (dispute["resolution"]["by"], dispute["resolution"]["keep"]) == ("sam", "both")
    with Agent.open("earth-2", home=world.home) as e2:
        assert not any(c["resolution"] and c["resolution"]["by"] == "ana" for c in e2.cases())
        assert not any("resolve dispute" in c.message for c in e2.log(5))
    # Supersede with mine: ana's "keep a" stands over sam's, here and, at its next pull, on earth-1
    page.click("#supersede button")
    page.wait_for_selector("#notice")
    assert page.locator("#notice").inner_text() == (
        "Verdict recorded under ana over the one that stood: this dispute is now resolved.")
    assert page.locator("#resolution").inner_text().startswith("Resolved: keep a by ana")
    assert "refuted" in page.locator("#side-b h2").inner_text()
    assert standing_verdict("earth-1", world)["resolution"]["by"] == "sam"  # not before its pull
    with Agent.open("earth-1", home=world.home, embedder=real_embedder) as e1:
        e1.pull()
    on_earth1 = standing_verdict("earth-1", world)
    assert on_earth1["resolution"]["by"] == "ana"
    kept = on_earth1[on_earth1["resolution"]["keep"]]["content"]
    assert kept == claims["a"]


def test_reopen_from_a_stale_tab_withdraws_the_verdict_that_stands(page, served, world, sam, real_embedder):
    open_dispute(page, served)
    sam_decides_on_earth1(world, PUMP, "the gauge reads normal")
    assert post_verdict(page, "b", "pressure test failed") == 409
    assert "sam's, keep" in page.locator("#standing").inner_text()
    assert page.locator("#reopen-standing-note").input_value() == "pressure test failed"  # what was typed
    page.fill("#reopen-standing-note", "the gauge was miscalibrated")
    page.click("#reopen-standing button")
    page.wait_for_selector("#reopened")
    assert page.locator("#dispute-status").inner_text() == "escalated"
    assert "the gauge was miscalibrated" in page.locator("#reopened").inner_text()
    assert page.locator("form#verdict").count() == 1  # open: a verdict can be given now
    with Agent.open("earth-1", home=world.home, embedder=real_embedder) as e1:
        e1.pull()
        (dispute,) = e1.disputes("open")
        assert dispute["reopened"]["by"] == "ana"


def test_a_supersede_over_a_verdict_that_changed_meanwhile_shows_the_new_one(page, served, world, sam):
    """The Supersede button names the verdict the person saw; a third one come since is shown first."""
    open_dispute(page, served)
    sam_decides_on_earth1(world, None, "two sensors, both right")
    assert post_verdict(page, "a", "pressure test failed") == 409
    with Agent.open("earth-1", home=world.home) as e1:
        (dispute,) = e1.disputes("resolved")
        e1.resolve_dispute(dispute["dispute"], keep=next(s for s in "ab" if dispute[s]["content"] == NOT_PUMP),
                           note="sam again: it leaked", by="sam", supersede=True)
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("#supersede button")
    assert posted.value.status == 409
    assert "sam again: it leaked" in page.locator("#standing").inner_text()
    assert standing_verdict("earth-2", world)["resolution"]["note"] == "sam again: it leaked"
    with Agent.open("earth-2", home=world.home) as e2:
        assert not any("verdict" in c.message for c in e2.log(10))  # earth-2 recorded none: it took sam's


def test_after_a_verdict_the_page_says_when_each_agent_gets_it(page, served, world, real_embedder):
    """earth-2 holds it and the commons has it at once (the page shares it); earth-1 and mars-1
    take it at their next pull: the page pulls for no agent."""
    open_dispute(page, served)
    page.fill("#note", "pressure test failed on sol 212")
    page.click("form#verdict button[value=a]")
    page.wait_for_selector("#reach")
    assert page.locator("#reach").inner_text() == (
        "earth-2 holds it now, and the commons has it already; earth-1 and mars-1 take it at their next pull "
        "(this page pulls for no agent).")
    with Agent.open("mars-1", home=world.home, embedder=real_embedder) as m1:
        assert m1.disputes(None) == []  # not before its pull
        m1.pull()
        (dispute,) = m1.disputes(None)
        assert (dispute["status"], dispute["resolution"]["by"]) == ("resolved", "ana")
    page.goto(served.url + "/disputes?status=resolved")
    assert page.locator("#reach").count() == 0  # said after a decision only


def test_error_lines_name_no_command_or_flag(page, served, world):
    open_dispute(page, served)
    assert post_verdict(page, "merged", "both wrong") == 400
    assert page.locator("#error").inner_text().startswith("text: merged needs the corrected statement")
    assert not CLI_WORDS.search(page.locator("main").inner_text())
    assert page.goto(served.url + "/disputes/no-such-dispute").status == 404
    assert page.locator("#problem").inner_text() == "dispute: no dispute 'no-such-dispute'"
    assert page.goto(served.url + "/promotions/no-such-memory").status == 404
    assert not CLI_WORDS.search(page.locator("main").inner_text())


def test_bad_input_is_said_before_the_commons_is_asked_and_nothing_changes(page, served, world, sam):
    open_dispute(page, served)
    sam_decides_on_earth1(world, None, "two sensors, both right")
    head = earth2_head(world)
    assert post_verdict(page, "a", "\u200b") == 400  # a note that says nothing
    assert page.locator("#error").inner_text() == "note: say why: a decision needs a note (it holds no visible character)"
    assert earth2_head(world) == head  # sam's verdict not even taken: nothing changed
    assert page.locator("#dispute-status").inner_text() in ("pending", "escalated")


def test_a_supersede_over_a_verdict_withdrawn_meanwhile_says_the_dispute_is_open_again(page, served, world, sam):
    open_dispute(page, served)
    sam_decides_on_earth1(world, None, "two sensors, both right")
    assert post_verdict(page, "a", "pressure test failed") == 409
    with Agent.open("earth-1", home=world.home) as e1:
        (dispute,) = e1.disputes("resolved")
        e1.reopen_dispute(dispute["dispute"], note="sam: not so sure", by="sam")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("#supersede button")
    assert posted.value.status == 409
    assert page.locator("#error").inner_text().startswith("No verdict stands on this dispute any more")
    assert page.locator("#dispute-status").inner_text() == "escalated"
    assert page.locator("#note").input_value() == "pressure test failed"  # ready to give again
    assert "sam: not so sure" in page.locator("#reopened").inner_text()
