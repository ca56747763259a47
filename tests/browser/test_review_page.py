"""The review page in a real browser: what a person sees and what their clicks change.

earth-2 holds a dispute (earth-1: the pump in module C is safe; mars-1: it is not) and
mars-1's pending proposal of its rover memory; ana reviews as herself.
"""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import pytest

from collective.agent import Agent
from review_support import NOT_PUMP, PUMP, QUERY, ROVER, Served, clock, cmem

pytestmark = pytest.mark.browser


def open_dispute(page, served) -> dict:
    """Open the page, follow the one open dispute; returns the claims by side letter."""
    page.goto(served.url + "/")
    rows = page.locator("tr.dispute")
    assert rows.count() == 1
    rows.first.locator("a").first.click()
    page.wait_for_url(re.compile(r"/disputes/"))
    return {side: page.locator(f"#side-{side} .claim").inner_text().strip() for side in ("a", "b")}


def earth2_head(world) -> str:
    with Agent.open("earth-2", home=world.home) as agent:
        return agent.log(1)[0].hash


def post_verdict(tab, keep: str, note: str) -> int:
    """Fill the note, click the verdict's button; the POST's status."""
    tab.fill("#note", note)
    with tab.expect_response(lambda r: r.request.method == "POST") as posted:
        tab.click(f"form#verdict button[value={keep}]")
    return posted.value.status


def test_the_page_shows_both_claims_side_by_side(page, served, world):
    with Agent.open("earth-2", home=world.home) as agent:
        head = agent.log(1)[0].hash
    claims = open_dispute(page, served)
    assert sorted(claims.values()) == sorted([PUMP, NOT_PUMP])
    origins = {side: page.locator(f"#side-{side} .origin").inner_text() for side in ("a", "b")}
    assert {claims[s]: origins[s] for s in "ab"} == {PUMP: "earth-1", NOT_PUMP: "mars-1"}
    for side in ("a", "b"):
        assert float(page.locator(f"#side-{side} .trust").inner_text()) == pytest.approx(0.5, abs=0.2)
        assert page.locator(f"#side-{side} table.history tbody tr").count() >= 1  # arrived, then disputed
    boxes = [page.locator(f"#side-{side}").bounding_box() for side in ("a", "b")]
    assert boxes[0]["x"] < boxes[1]["x"] and abs(boxes[0]["y"] - boxes[1]["y"]) < 1  # side by side
    alike = re.fullmatch(r"(.+) \(similarity ([0-9.]+)\)", page.locator("#similarity").inner_text())
    assert alike and alike[1] == "almost the same words" and 0.5 < float(alike[2]) <= 1.0  # in words, then the number
    assert page.locator("#stances").inner_text().startswith("opposite")
    # what differs, word by word: the one word "not", on the side that says it
    negated = "a" if claims["a"] == NOT_PUMP else "b"
    assert page.locator(f"#diff-{negated} ins").all_inner_texts() == ["not"]
    assert page.locator(f"#diff-{'b' if negated == 'a' else 'a'} ins, #diff-{'b' if negated == 'a' else 'a'} del").count() == 0
    assert not page.locator("#reason").is_visible()  # the judge's own words, on request
    page.click("#judge summary")
    said = {"a": claims["a"][0].lower() + claims["a"][1:], "b": "it is not safe to operate" if negated == "b" else "it is safe to operate"}
    assert page.locator("#reason").inner_text() == f"a says {said['a']}; b says {said['b']}."  # in the claims' own words
    for side in ("a", "b"):
        assert page.locator(f"#side-{side} .signature").inner_text() == "verified at the pull that brought it"
        assert len(page.locator(f"#side-{side} dd.id").first.inner_text()) == 8  # short ids, the whole on hover
    assert re.fullmatch(r"just now|\d+ min ago", page.locator("dl.facts time").first.inner_text())
    assert page.locator("#dispute-status").inner_text() in ("pending", "escalated")
    assert page.locator("#reviewer").inner_text() == "ana"
    assert page.locator("form#verdict button").all_inner_texts()[:3] == ["Keep a", "Keep b", "Both stand"]
    with Agent.open("earth-2", home=world.home) as agent:
        assert agent.log(1)[0].hash == head  # reading the page commits nothing


def test_keep_b_with_a_note_resolves_the_dispute_and_recall_agrees(page, served, world, capsys):
    claims = open_dispute(page, served)
    keep = "b" if claims["b"] == NOT_PUMP else "a"  # the side that says "not safe"
    page.fill("#note", "pressure test failed on sol 212")
    started = clock()
    page.click(f"form#verdict button[value={keep}]")
    page.wait_for_selector("#resolution")
    shown = clock()
    recalled = cmem("recall", QUERY, "--agent", "earth-2", "--json", home=world.home)
    answered = clock()
    assert recalled.returncode == 0, recalled.stderr
    hits = json.loads(recalled.stdout)["hits"]
    assert hits[0]["content"] == NOT_PUMP
    assert PUMP not in [h["content"] for h in hits]  # refuted: left out by default
    assert page.locator("#dispute-status").inner_text() == "resolved"
    assert f"keep {keep}" in page.locator("#resolution").inner_text()
    assert "pressure test failed on sol 212" in page.locator("#resolution").inner_text()
    assert "ana" in page.locator("#resolution").inner_text()
    assert page.locator("#notice").is_visible()
    assert page.locator("form#verdict").count() == 0
    loser = "a" if keep == "b" else "b"
    assert "refuted" in page.locator(f"#side-{loser} h2").inner_text()
    page.goto(served.url + "/")
    assert page.locator("tr.dispute").count() == 0
    with capsys.disabled():
        print(f"\n[review] click->page {shown - started:.3f}s, page->recall {answered - shown:.3f}s, "
              f"click->recall {answered - started:.3f}s")


def test_a_post_without_the_csrf_token_is_refused(page, served, world):
    page.goto(f"{served.url}/promotions/{world.rover}")
    page.fill("#note", "looks right")
    page.evaluate("document.querySelectorAll('input[name=csrf]').forEach(e => e.remove())")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("button[value=approve]")
    assert posted.value.status == 403
    assert "CSRF" in page.locator("#problem").inner_text()
    forged = page.request.post(f"{served.url}/promotions/{world.rover}",
                               form={"decision": "approve", "note": "x", "csrf": "0" * 64})
    assert forged.status == 403
    with Agent.open("earth-2", home=world.home) as agent:
        assert [p["status"] for p in agent.promotions(None)] == ["pending"]
        (dispute,) = agent.disputes("open")
    for path in ("/disputes/bulk", f"/agents/earth-2/disputes/{dispute['dispute']}"):  # the bulk verdict too
        forged = page.request.post(served.url + path, form={"dispute": dispute["dispute"], "keep": "both",
                                                             "note": "x", "csrf": "0" * 64})
        assert forged.status == 403, path
    with Agent.open("earth-2", home=world.home) as agent:
        assert len(agent.disputes("open")) == 1


def test_a_promotion_approved_on_the_page(page, served, world):
    page.goto(served.url + "/")
    row = page.locator(f"tr.promotion[data-memory='{world.rover}']")
    assert ROVER in row.inner_text() and "mars-1" in row.inner_text()
    row.locator("input[name=note]").fill("the battery log confirms it")
    row.locator("button[value=approve]").click()
    page.wait_for_url(re.compile(f"/promotions/{world.rover}"))
    assert page.locator("#promotion-status").inner_text() == "promoted"
    assert page.locator("#decided-by").inner_text() == "ana"
    with Agent.open("earth-2", home=world.home) as agent:
        assert [(p["memory"], p["status"]) for p in agent.promotions(None)] == [(world.rover, "promoted")]
    page.goto(served.url + "/")
    assert page.locator("#no-promotions").inner_text() == "No pending promotions."
    page.goto(served.url + "/promotions?status=promoted")
    assert page.locator(f"tr.promotion[data-memory='{world.rover}'] td").first.inner_text() == "promoted"
    recalled = cmem("recall", "rover battery", "--consensus", "--agent", "earth-2", "--json", home=world.home)
    assert recalled.returncode == 0, recalled.stderr
    assert [h["content"] for h in json.loads(recalled.stdout)["hits"]] == [ROVER]


def test_a_non_loopback_bind_without_a_token_is_refused(world):
    done = cmem("review", "--host", "0.0.0.0", "--agent", "earth-2", "--by", "ana", "--for", "1", home=world.home)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip().splitlines() == [
        "Error: token: binding 0.0.0.0 (not loopback) needs a token: --token or $CMEM_REVIEW_TOKEN"]


def test_bad_addresses_tokens_and_ports_in_use_are_one_line(world):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        cases = {("--host", "review.example.org"): (2, "Error: host: 'review.example.org' is not an IP address"),
                 ("--token", "short"): (2, "Error: token: must be 12 to 256"),
                 ("--by", "nobody"): (2, "Error: by: no reviewer key for nobody"),
                 ("--port", port): (1, f"Error: cannot listen on 127.0.0.1:{port}: ")}
        for args, (code, start) in cases.items():
            done = cmem("review", *args, "--agent", "earth-2", "--for", "1", home=world.home)
            lines = done.stderr.strip().splitlines()
            assert (done.returncode, done.stdout, len(lines)) == (code, "", 1), (args, done.stderr)
            assert lines[0].startswith(start), (args, lines)


def test_with_a_token_every_request_needs_it_once_then_the_cookie(page, browser, world):
    server = Served(world.home, "--token", "correct-horse-battery")
    try:
        assert server.info["open"] == server.url + "/?token=correct-horse-battery"
        refused = page.goto(server.url + "/promotions")
        assert refused.status == 401
        page.goto(server.info["open"])
        assert page.url == server.url + "/"  # the token left the address bar for a cookie
        assert page.goto(server.url + "/promotions").status == 200
        assert page.locator(f"tr.promotion[data-memory='{world.rover}']").count() == 1
        wrong = browser.new_context()
        try:
            assert wrong.new_page().goto(server.url + "/?token=wrong-horse-battery").status == 401
        finally:
            wrong.close()
    finally:
        assert server.stop()[0] == 0


def test_merged_without_text_says_why_keeps_what_was_typed_and_writes_nothing(page, served, world):
    open_dispute(page, served)
    head = earth2_head(world)
    assert post_verdict(page, "merged", "both wrong") == 400
    assert page.locator("#error").inner_text().startswith("text: ")
    assert page.locator("#note").input_value() == "both wrong"
    assert page.locator("#dispute-status").inner_text() in ("pending", "escalated")
    with Agent.open("earth-2", home=world.home) as agent:
        assert agent.log(1)[0].hash == head
        assert [d["status"] for d in agent.disputes(None)] == [page.locator("#dispute-status").inner_text()]


def test_every_list_renders_and_unknown_things_say_so(page, served):
    for path in ["/", *(f"/disputes?status={s}" for s in ("open", "pending", "escalated", "resolved", "all")),
                 *(f"/promotions?status={s}" for s in ("pending", "promoted", "rejected", "all"))]:
        assert page.goto(served.url + path).status == 200, path
        assert page.locator("#reviewer").inner_text() == "ana"
    assert page.goto(served.url + "/disputes/no-such-dispute").status == 404
    assert "no-such-dispute" in page.locator("#problem").inner_text()
    assert page.goto(served.url + "/promotions/no-such-memory").status == 404
    assert page.goto(served.url + "/disputes?status=bogus").status == 400
    assert page.locator("#problem").inner_text().startswith("status: must be one of")
    assert page.goto(served.url + "/nowhere").status == 404


def test_a_second_verdict_from_a_stale_tab_is_refused_and_changes_nothing(page, served, world):
    open_dispute(page, served)
    stale = page.context.new_page()
    stale.goto(page.url)
    page.fill("#note", "first")
    page.click("form#verdict button[value=both]")
    page.wait_for_selector("#resolution")
    head = earth2_head(world)
    assert post_verdict(stale, "a", "second") == 409
    assert "A verdict already stands on this dispute: ana's, keep both" in stale.locator("#standing").inner_text()
    assert "keep both" in stale.locator("#resolution").inner_text()  # the page shows the verdict that stands
    assert earth2_head(world) == head


def test_merged_stores_the_corrected_statement_with_both_sides_as_parents(page, served, world):
    open_dispute(page, served)
    corrected = "The coolant pump in module C is safe to operate only below 40 bar"
    page.fill("#note", "both half right")
    page.fill("#text", corrected)
    page.click("form#verdict button[value=merged]")
    page.wait_for_selector("#resolution")
    assert corrected in page.locator("#resolution").inner_text()
    for side in ("a", "b"):
        assert "refuted" in page.locator(f"#side-{side} h2").inner_text()
    with Agent.open("earth-2", home=world.home) as agent:
        (dispute,) = agent.disputes("resolved")
        merged = agent.get(dispute["resolution"]["memory"])
    assert merged.content == corrected
    assert sorted(merged.parents) == sorted(world.dispute_memories.values())
    recalled = cmem("recall", QUERY, "--agent", "earth-2", "--json", home=world.home)
    assert [h["content"] for h in json.loads(recalled.stdout)["hits"]][:1] == [corrected]


def test_a_resolved_dispute_is_reopened_on_the_page_and_the_list_says_who_decided(page, served, world):
    claims = open_dispute(page, served)
    keep = "b" if claims["b"] == NOT_PUMP else "a"
    page.fill("#note", "pressure test failed on sol 212")
    page.click(f"form#verdict button[value={keep}]")
    page.wait_for_selector("#resolution")
    page.goto(served.url + "/disputes?status=resolved")
    assert page.locator("tr.dispute td.verdict").inner_text().startswith(f"keep {keep} by ana,")
    page.locator("tr.dispute a").first.click()
    page.wait_for_selector("form#reopen")
    page.fill("#reopen-note", "the gauge was miscalibrated")
    page.click("form#reopen button")
    page.wait_for_selector("#reopened")
    assert page.locator("#dispute-status").inner_text() == "escalated"
    assert "the gauge was miscalibrated" in page.locator("#reopened").inner_text()
    assert page.locator("#notice").inner_text().startswith("Reopening recorded under ana")
    assert page.locator("form#verdict").count() == 1  # open again: a verdict can be given
    with Agent.open("earth-2", home=world.home) as agent:
        (dispute,) = agent.disputes("open")
        assert dispute["reopened"]["by"] == "ana"
        assert not agent.get(dispute["a"]["memory"]).refuted_by and not agent.get(dispute["b"]["memory"]).refuted_by


def test_search_and_agent_filters_narrow_the_list_and_a_bulk_verdict_signs_each(page, served, world):
    page.goto(served.url + "/?q=coolant+pump")
    assert page.locator("tr.dispute").count() == 1
    page.goto(served.url + "/?q=greenhouse")
    assert page.locator("tr.dispute").count() == 0 and page.locator("#no-disputes").is_visible()
    page.goto(served.url + "/")
    page.select_option("#filter-agent", "mars-1")
    page.click("#filters button")
    page.wait_for_url(re.compile(r"agent=mars-1"))
    assert page.locator("tr.dispute").count() == 1
    page.goto(served.url + "/")
    page.check("tr.dispute input[type=checkbox]")
    page.fill("#bulk-note", "not a contradiction: different sensors")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("#bulk button[value=both]")
    assert posted.value.status == 303
    page.wait_for_selector("#no-disputes")
    assert page.locator("#notice").inner_text() == "Recorded: 1 verdict."
    with Agent.open("earth-2", home=world.home) as agent:
        (dispute,) = agent.disputes("resolved")
    assert dispute["resolution"]["keep"] == "both" and dispute["resolution"]["by"] == "ana"


# Everything on the page that reaches past its card (a claim's side, an agent's card) or past
# the screen, or scrolls sideways inside something: what a person would have to scroll to read.
# Every <details> is opened first, so the history tables are measured too.
OVERFLOWING = """() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const screen = document.documentElement.clientWidth, out = [];
  const named = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  for (const el of document.querySelectorAll("main *")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || el.closest(".sr")) continue;
    const card = el.parentElement && el.parentElement.closest(".side, .agent-card, .picture, .decide, .differs");
    const right = card ? card.getBoundingClientRect().right : screen;
    if (r.right > right + 1 || r.left < -1) out.push(`${named(el)} reaches ${Math.round(r.right)} past ${Math.round(right)}`);
    if (el.scrollWidth > el.clientWidth + 1 && !["visible", "hidden"].includes(getComputedStyle(el).overflowX))
      out.push(`${named(el)} scrolls sideways: ${el.scrollWidth} in ${el.clientWidth}`);
  }
  return out;
}"""


@pytest.mark.parametrize("width", [1280, 400])
def test_the_pages_fit_the_screen_and_are_photographed(browser, served, world, width, tmp_path):
    """No page is wider than the screen, from a phone to a desktop, and nothing on it is wider
    than its card or scrolls sideways (the lists, each claim's history); the screenshots land
    in $CMEM_DOCS_IMAGES when it names a folder (`make docs-images`: the docs' pictures)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    shots = Path(os.environ.get("CMEM_DOCS_IMAGES") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)

    def fits(what: str) -> None:
        assert page.evaluate("document.documentElement.scrollWidth") <= width, what
        assert page.evaluate(OVERFLOWING) == [], what

    try:
        page.goto(served.url + "/")
        page.screenshot(path=str(shots / f"review-overview-{width}.png"), full_page=True)
        fits("/")
        page.locator("tr.dispute a").first.click()
        page.wait_for_selector("#differs")
        page.screenshot(path=str(shots / f"review-dispute-{width}.png"), full_page=True)
        dispute = page.url
        fits("an open dispute")
        stale = context.new_page()  # a tab opened before the verdict below
        stale.goto(dispute)
        page.goto(dispute)
        page.fill("#note", "pressure test failed on sol 212")
        page.click("form#verdict button[value=b]")
        page.wait_for_selector("#resolution")
        fits("a resolved dispute")  # the history holds in its card
        stale.fill("#note", "the gauge reads normal")
        stale.click("form#verdict button[value=a]")
        stale.wait_for_selector("#standing")
        page, stale = stale, page
        page.screenshot(path=str(shots / f"review-standing-{width}.png"), full_page=True)
        fits("a verdict that stands over a stale tab's")
        for path, name in (("/disputes?status=resolved", "resolved"), ("/disputes?status=all", None),
                           ("/promotions", None), (f"/promotions/{world.rover}", None), ("/agents", "agents"),
                           ("/pictures", "pictures"), ("/memories", "memories"), ("/memories?q=coolant+pump", None)):
            page.goto(served.url + path)
            if name:
                page.screenshot(path=str(shots / f"review-{name}-{width}.png"), full_page=True)
            fits(path)
    finally:
        context.close()


def test_select_all_counts_and_selects_every_open_dispute_for_the_bulk_verdict(page, served):
    page.goto(served.url + "/")
    assert page.locator("#dispute-count").inner_text() == "1 dispute"
    assert page.locator("#selected-count").inner_text() == "0 selected"
    page.check("#select-all")
    assert page.locator("tr.dispute input[name=dispute]").is_checked()
    assert page.locator("#selected-count").inner_text() == "1 selected"
    page.uncheck("tr.dispute input[name=dispute]")
    assert not page.is_checked("#select-all") and page.locator("#selected-count").inner_text() == "0 selected"
    page.check("#select-all")
    page.fill("#bulk-note", "not a contradiction: different sensors")
    page.click("#bulk button[value=both]")
    page.wait_for_selector("#no-disputes")
    assert page.locator("#notice").inner_text() == "Recorded: 1 verdict."


def test_the_kept_claim_is_not_struck_through_once_decided(page, served):
    """Whichever side is kept, its own words are not struck through; the refuted side's are."""
    claims = open_dispute(page, served)
    dispute = page.url
    negated = "a" if claims["a"] == NOT_PUMP else "b"  # the side with the word "not"
    other = "b" if negated == "a" else "a"
    struck = """side => [...document.querySelectorAll(`#diff-${side} *, #side-${side} *`)]
        .filter(el => getComputedStyle(el).textDecorationLine.includes("line-through")).map(el => el.innerText)"""
    post_verdict(page, negated, "the pressure test failed")
    page.wait_for_selector("#resolution")
    assert page.evaluate(struck, negated) == []
    assert page.locator(f"#diff-{negated} ins").all_inner_texts() == ["not"]  # what the kept claim adds
    page.fill("#reopen-note", "the gauge was miscalibrated")
    page.click("form#reopen button")
    page.wait_for_selector("#reopened")
    page.goto(dispute)
    post_verdict(page, other, "the pressure test passed after all")
    page.wait_for_selector("#resolution")
    assert page.evaluate(struck, other) == []
    assert page.evaluate(struck, negated) == ["not"]  # the refuted claim's own word
