"""A day's work through `cmem mcp` as a client's model does it, measured: every result
stays within what a model's context affords, and so does the tool list.

earth-1 is Priya's assistant. In the morning it writes down what she tells it about
herself and about Project Falcon (25 facts) and answers 15 questions from them. Her
teammate's assistant, mars-1, has shared what it knows; one of its memories gives another
release date than hers: a dispute, after the pull. Priya moves the design review, so her
assistant stores the new time with `supersedes` the old. mars-1's budget is out of date:
her assistant challenges it with what it holds instead, and Priya, a reviewer, keeps the
counter-claim through her own MCP client (`cmem mcp --reviewer ada`). After the next pulls
the verdict stands on both agents.

The day runs once (the `day` fixture, the script); each test below checks one part of it."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from collective.cli import cli

from tests.integration.test_mcp import run, served

RESULT_BYTES = 4096  # the most one answer may cost
TOOL_LIST_BYTES = 15_000

# (what Priya says, tags, a question later asked of it or None)
FACTS = [
    ("Priya takes her coffee as a dark roast with oat milk", ["priya"], "How does Priya like her coffee?"),
    ("Priya is allergic to shellfish", ["priya", "health"], "Is Priya allergic to anything?"),
    ("Priya's partner is Tomás, a nurse at the university hospital", ["priya", "family"], "Who is Priya's partner?"),
    ("Priya's daughter Lina starts primary school on 2 September", ["priya", "family"], "When does Lina start school?"),
    ("Priya keeps Friday afternoons free of meetings", ["priya"], "Is Priya free for a call on Friday afternoon?"),
    ("Priya wants summaries as five bullet points at most", ["priya"], "How should I write a summary for Priya?"),
    ("Priya's birthday is on 14 May", ["priya"], "When is Priya's birthday?"),
    ("Priya lives in Utrecht and cycles to the office", ["priya"], None),
    ("Priya is vegetarian", ["priya", "health"], "Does Priya eat meat?"),
    ("Priya's manager is Henrik Dahl", ["priya", "work"], "Who is Priya's manager?"),
    ("Priya's flight to Lisbon leaves Schiphol on 12 October at 07:15", ["priya", "travel"], None),
    ("Priya's laptop is a ThinkPad running Fedora", ["priya"], None),
    ("Priya's dentist appointment is on 3 October at 16:00", ["priya", "health"], None),
    ("Project Falcon's first release is due on 30 November", ["falcon"], "When is Falcon's first release due?"),
    ("Project Falcon's backend is written in Go on PostgreSQL 16", ["falcon"], "Which database does Falcon use?"),
    ("Falcon's staging environment is redeployed every night at 02:00", ["falcon"], None),
    ("Falcon's contact at the customer, Northwind Logistics, is Marta Ruiz", ["falcon"],
     "Who is our contact at Northwind Logistics?"),
    ("A Falcon pull request needs two approvals before it is merged", ["falcon"],
     "How many approvals does a Falcon pull request need?"),
    ("The Falcon team's standup is at 09:30 every weekday", ["falcon"], "What time is the Falcon standup?"),
    ("Jonas is on call for Falcon this week", ["falcon"], None),
    ("The Falcon design review is on Tuesday at 10:00 in room 4.12", ["falcon"], "When is the Falcon design review?"),
    ("Falcon's releases are tagged vMAJOR.MINOR.PATCH from the main branch", ["falcon"], None),
    ("Marta Ruiz prefers to be called rather than emailed", ["falcon", "northwind"], None),
    ("The Falcon team lunch on Wednesday is at the Thai place on Oudegracht", ["falcon"], None),
    ("Falcon's tracking screen must work on the drivers' old Android phones", ["falcon"], None),
]
RELEASE, REVIEW = FACTS[13][0], FACTS[20][0]
TEAMMATE = [  # what mars-1, a teammate's assistant, shared that morning
    "Project Falcon's first release is due on 15 December",  # not what Priya was told: a dispute
    "Project Falcon's budget is 120,000 euros",  # out of date: Priya's assistant challenges it
    "Northwind Logistics wants a demo of Falcon's tracking screen in October",
    "Falcon's load tests run against staging on Thursdays",
    "Henrik Dahl is on holiday from 4 to 15 August",
]
OTHER_DATE, BUDGET = TEAMMATE[0], TEAMMATE[1]
MOVED = "The Falcon design review moved to Thursday at 15:00 in room 2.07"
RAISED = "Project Falcon's budget was raised to 150,000 euros in March"
ASK_RELEASE, ASK_REVIEW, ASK_BUDGET = FACTS[13][2], FACTS[20][2], "What is Project Falcon's budget?"


class Meter:
    """Each result's size in bytes, as its text reaches the model, by tool."""

    def __init__(self):
        self.sizes: list[tuple[str, int]] = []

    async def call(self, session, tool: str, **arguments) -> dict:
        result = await session.call_tool(tool, arguments)
        assert not result.is_error, (tool, result.content)
        [text] = result.content
        assert json.loads(text.text) == result.structured_content  # what the model reads is the result
        self.sizes.append((tool, len(text.text.encode())))
        return result.structured_content

    async def tool_list(self, session, name: str = "tools/list") -> set[str]:
        listed = (await session.list_tools()).tools
        self.sizes.append((name, len(json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True)
                                                 for t in listed], separators=(",", ":")).encode())))
        return {t.name for t in listed}

    async def hits(self, session, query: str, **arguments) -> list[dict]:
        return (await self.call(session, "memory_recall", query=query, **arguments))["hits"]

    def table(self) -> str:
        lines = [f"{'tool':22} {'count':>5} {'max':>6} {'mean':>6}"]
        for tool in dict.fromkeys(tool for tool, _ in self.sizes):
            each = [size for name, size in self.sizes if name == tool]
            lines.append(f"{tool:22} {len(each):>5} {max(each):>6} {sum(each) // len(each):>6}")
        return "\n".join(lines)


@dataclass
class Day:
    """What the model saw through the day, step by step."""

    meter: Meter = field(default_factory=Meter)
    shared: dict[str, str] = field(default_factory=dict)  # mars-1's text -> id
    stored: dict[str, dict] = field(default_factory=dict)  # Priya's fact -> memory_store's answer
    answers: dict[str, list[dict]] = field(default_factory=dict)  # question -> hits, best first
    pulled: dict = field(default_factory=dict)
    disputes: dict = field(default_factory=dict)  # the first page, after the pull
    dispute: dict = field(default_factory=dict)  # the case the pull opened, whole
    release_hits: list = field(default_factory=list)
    moved: dict = field(default_factory=dict)
    review_hits: list = field(default_factory=list)
    challenged: dict = field(default_factory=dict)
    open_then: dict = field(default_factory=dict)  # the disputes after the challenge
    person_tools: set = field(default_factory=set)
    decided: dict = field(default_factory=dict)
    after: dict[str, dict] = field(default_factory=dict)  # agent -> what it sees after the verdict


async def teammate_shares(day: Day, home: Path) -> None:
    async with served(home, "mars-1") as mars:
        for text in TEAMMATE:
            day.shared[text] = (await day.meter.call(mars, "memory_store", content=text, tags=["falcon"]))["id"]
        await day.meter.call(mars, "memory_push")


async def morning(day: Day, earth) -> None:
    """Priya's 25 facts, then 15 questions."""
    for text, tags, _ in FACTS:
        day.stored[text] = await day.meter.call(earth, "memory_store", content=text, tags=tags,
                                                category="social" if "priya" in tags else "knowledge")
    for _, _, question in FACTS:
        if question:
            day.answers[question] = await day.meter.hits(earth, question)


async def pull_meets_the_teammate(day: Day, earth) -> None:
    day.pulled = await day.meter.call(earth, "memory_pull")
    day.disputes = await day.meter.call(earth, "memory_disputes")
    [case] = day.pulled["peers"][0]["summary"]["cases"]
    day.dispute = await day.meter.call(earth, "memory_dispute", dispute_id=case)
    day.release_hits = await day.meter.hits(earth, ASK_RELEASE)
    await day.meter.call(earth, "memory_push")


async def correction(day: Day, earth) -> None:
    """The design review moved: the new time supersedes the old."""
    day.moved = await day.meter.call(earth, "memory_store", content=MOVED, tags=["falcon"],
                                     supersedes=day.stored[REVIEW]["id"])
    day.review_hits = await day.meter.hits(earth, ASK_REVIEW)


async def challenge(day: Day, earth) -> None:
    """mars-1's budget is out of date: challenged with what earth-1 holds instead."""
    day.challenged = await day.meter.call(earth, "memory_challenge", memory_id=day.shared[BUDGET], why=RAISED)
    day.open_then = await day.meter.call(earth, "memory_disputes")
    await day.meter.call(earth, "memory_push")
    await day.meter.call(earth, "memory_status")


async def person_decides(day: Day, home: Path) -> None:
    """Priya, as reviewer ada, keeps the counter-claim through her own MCP client."""
    async with served(home, "earth-1", reviewer="ada") as person:
        day.person_tools = await day.meter.tool_list(person, "tools/list, reviewer")
        await day.meter.call(person, "memory_disputes")
        shown = await day.meter.call(person, "memory_dispute", dispute_id=day.challenged["dispute"])
        keep = "a" if shown["a"]["memory"] == day.challenged["id"] else "b"
        day.decided = await day.meter.call(person, "memory_resolve", dispute_id=day.challenged["dispute"],
                                           keep=keep, note="Henrik raised it in March; see the minutes")


async def next_pull(day: Day, session, agent_id: str) -> None:
    """What an agent sees after its next pull: the two disputes, the budget, the release."""
    m, dispute = day.meter, day.challenged["dispute"]
    day.after[agent_id] = {
        "pulled": await m.call(session, "memory_pull"),
        "challenge": await m.call(session, "memory_dispute", dispute_id=dispute),
        "resolved": await m.call(session, "memory_disputes", status="resolved"),
        "open": await m.call(session, "memory_disputes"),
        "budget": await m.call(session, "memory_show", memory_id=day.shared[BUDGET]),
        "budget_hits": await m.hits(session, ASK_BUDGET),
        "release_hits": await m.hits(session, ASK_RELEASE),
    }
    await m.call(session, "memory_list")  # a look at the newest


@pytest.fixture(scope="module")
def day(tmp_path_factory) -> Day:
    home = tmp_path_factory.mktemp("day")
    with pytest.MonkeyPatch.context() as env:  # nothing of the developer's own setup
        for name in [n for n in os.environ if n.startswith(("CMEM_", "DOLTLITE_"))]:
            env.delenv(name)
        return a_day(home)


def a_day(home: Path) -> Day:
    def cmem(*args: str) -> str:
        done = CliRunner().invoke(cli, [*args, "--home", str(home)])
        assert done.exit_code == 0, done.output
        return done.stdout

    for agent_id in ("earth-1", "mars-1"):
        cmem("init", "--agent", agent_id)
        cmem("remote", "add", "origin", f"file://{home / 'commons.db'}", "--agent", agent_id)
    ada = json.loads(cmem("reviewer", "init", "--name", "ada", "--json"))
    for agent_id in ("earth-1", "mars-1"):  # both honour Priya's verdicts
        cmem("reviewers", "add", "ada", ada["public_key"], "--agent", agent_id)
    day = Day()

    async def script():
        await teammate_shares(day, home)
        async with served(home, "earth-1") as earth:
            await day.meter.tool_list(earth)
            await morning(day, earth)
            await pull_meets_the_teammate(day, earth)
            await correction(day, earth)
            await challenge(day, earth)
        await person_decides(day, home)
        for agent_id in ("mars-1", "earth-1"):
            async with served(home, agent_id) as session:
                await next_pull(day, session, agent_id)

    run(script)
    return day


def ids(hits: list[dict]) -> list[str]:
    return [h["id"] for h in hits]


def test_25_facts_are_stored_and_15_questions_find_their_fact_first(day):
    assert len({stored["id"] for stored in day.stored.values()}) == 25
    assert not any(stored["deduplicated"] for stored in day.stored.values())
    asked = {question: text for text, _, question in FACTS if question}
    assert len(asked) == 15
    assert {q: [h["content"] for h in hits][:1] for q, hits in day.answers.items()} == {
        q: [text] for q, text in asked.items()}


def test_the_teammates_other_release_date_is_one_dispute_after_the_pull(day):
    [peer] = day.pulled["peers"]
    assert peer["peer"] == "mars-1" and peer["summary"]["new"] == len(TEAMMATE)
    assert day.disputes["total"] == 1
    [dispute] = day.disputes["disputes"]
    assert {dispute["a"]["content"], dispute["b"]["content"]} == {RELEASE, OTHER_DATE}
    assert day.dispute["dispute"] == dispute["dispute"] and day.dispute["status"] == "pending"
    top_two = day.release_hits[:2]
    assert {h["content"] for h in top_two} == {RELEASE, OTHER_DATE} and all(h["disputed"] for h in top_two)


def test_a_correction_by_supersedes_takes_the_old_facts_place_in_recall(day):
    old = day.stored[REVIEW]["id"]
    assert day.moved["supersedes"] == old
    assert ids(day.review_hits)[0] == day.moved["id"] and old not in ids(day.review_hits)


def test_a_challenge_goes_to_a_person_whose_verdict_reaches_both_agents(day):
    challenged, budget = day.challenged, day.shared[BUDGET]
    assert (challenged["challenges"], challenged["origin_agent"], challenged["status"]) == (budget, "mars-1",
                                                                                             "pending")
    assert day.open_then["total"] == 2 and challenged["dispute"] in [d["dispute"] for d in day.open_then["disputes"]]
    assert {"memory_resolve", "memory_reopen", "memory_decide_promotion", "memory_decide_key"} <= day.person_tools
    assert (day.decided["status"], day.decided["resolution"]["by"]) == ("resolved", "ada")
    assert day.after["mars-1"]["pulled"]["applied"]["verdicts"] == [challenged["dispute"]]
    for agent_id, seen in day.after.items():
        assert seen["challenge"]["status"] == "resolved", agent_id
        assert [d["dispute"] for d in seen["resolved"]["disputes"]] == [challenged["dispute"]], agent_id
        assert seen["budget"]["refuted_by"] == challenged["dispute"], agent_id
        assert budget not in ids(seen["budget_hits"]) and challenged["id"] in ids(seen["budget_hits"]), agent_id
    assert ids(day.after["earth-1"]["budget_hits"])[0] == challenged["id"]


def test_every_result_fits_a_models_context(day, capsys):
    with capsys.disabled():
        print("\nMCP session, bytes per result:\n" + day.meter.table())
    sizes = dict(day.meter.sizes)
    assert sizes["tools/list"] < TOOL_LIST_BYTES, sizes["tools/list"]
    assert [(tool, size) for tool, size in day.meter.sizes if size > RESULT_BYTES and not tool.startswith("tools/")] \
        == []


@pytest.mark.xfail(strict=True, reason="the judge reads two facts of one owner with two dates as contradicting: "
                   "\"Priya's birthday is on 14 May\" against \"Priya's daughter Lina starts primary school on "
                   "2 September\" is destructive (matched owner:priya, clashed day:09-02 vs 05-14)")
def test_facts_about_one_person_do_not_contradict_each_other(day):
    assert {text: stored["contradicts"] for text, stored in day.stored.items() if stored["contradicts"]} == {}


@pytest.mark.xfail(strict=True, reason="the judge reads \"Project Falcon's budget is 120,000 euros\" and \"Project "
                   "Falcon's first release is due on 30 November\" as one statement (constructive, 'Both say project "
                   "Falcon's budget is 120,000 euros', matched owner:falcon, cosine 0.63): each pull absorbs one into "
                   "the other, and the verdict on the budget refutes both sides of the release-date dispute")
def test_a_verdict_on_the_budget_leaves_the_release_dates_in_dispute(day):
    release = {day.stored[RELEASE]["id"], day.shared[OTHER_DATE]}
    for agent_id, seen in day.after.items():
        [still] = seen["open"]["disputes"]
        assert {still["a"]["memory"], still["b"]["memory"]} == release, agent_id
        assert set(ids(seen["release_hits"])[:2]) == release, agent_id


def test_the_verdicts_winner_answers_the_budget_question_on_the_teammate_too(day):
    assert ids(day.after["mars-1"]["budget_hits"])[:1] == [day.challenged["id"]]
