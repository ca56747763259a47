"""Three agents, one commons: store, recall, sync, merge, quarantine, resolve, promote.

earth-1 and earth-2 work on Earth, mars-1 on Mars; they meet only through a
commons database in sync windows. Run with `make demo`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import textwrap
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # nats_servers: a local nats-server

MEMORIES = {
    "earth-1": [
        ("The coolant pump in module C is safe to operate.", "knowledge", 0.8, None),
        ("Rover 5 finished its traverse to the northern ridge.", "experience", 0.5, None),
        ("Crew sleep shift starts at 22:00 station time.", "knowledge", 0.4, None),
        ("The greenhouse CO2 scrubber filter was replaced this morning.", "experience", 0.6, None),
        ("Water recycling efficiency is 93 percent this week.", "knowledge", 0.5, None),
        ("Dr. Okafor leads the bone density study.", "social", 0.4, None),
    ],
    "earth-2": [
        ("The coolant pump in module C is safe to operate", "knowledge", 0.6, None),
        ("Solar array B produced 41 kWh yesterday.", "knowledge", 0.5, None),
        ("Sample 14 from the crater rim contains hematite.", "knowledge", 0.7, None),
    ],
    "mars-1": [
        ("The coolant pump in module C is not safe to operate.", "knowledge", 0.9, None),
        ("Dust storm expected over the landing site within three days.", "knowledge", 0.8, None),
        ("Rover 5 finished its traverse to the northern ridge.", "experience", 0.5, "uncertain"),
    ],
}


def say(text: str) -> None:
    print(textwrap.fill(text, width=96))


def heading(text: str) -> None:
    print(f"\n== {text} " + "=" * max(0, 90 - len(text)))


def show_recall(agent: Agent, query: str, **kwargs) -> None:
    how = (" as of " + kwargs["as_of"][:12] if "as_of" in kwargs else "") + (
        " with refuted memories" if kwargs.get("include_refuted") else "")
    print(f"  {agent.agent_id} recalls {query!r}{how}:")
    hits = agent.recall(query, k=3, **kwargs)
    for hit in hits:
        flag = (f"  [refuted by {hit.memory.refuted_by[:12]}]" if hit.memory.refuted_by
                else "  [disputed]" if hit.memory.disputed else "")
        print(f"    {hit.score:.3f}  {hit.memory.summary}  ({hit.memory.origin_agent}){flag}")
    if not hits:
        closest = hits.closest
        print("    nothing recalled" + (f" (closest: {closest.memory.summary!r} at relevance {closest.relevance:.2f},"
                                         f" below {hits.min_score:.2f})" if closest else ""))


def resolve_for_mars(reviewer: Agent) -> dict | None:
    """The flight surgeon sides with mars-1 on the pump: one verdict for the whole dispute."""
    for dispute in reviewer.disputes("open"):
        for side in ("a", "b"):
            if dispute[side]["origin_agent"] == "mars-1" and "pump" in dispute[side]["content"]:
                return reviewer.resolve_dispute(dispute["dispute"], keep=side, by="flight-surgeon",
                                                note="inspection on Mars found a cracked impeller")
    return None


def show_events(root: Path, earth: Agent, mars: Agent) -> None:
    """A local nats-server with JetStream; mars-1 listens (verify, decide, pull) while
    earth-1 stores and pushes; the outbox goes out over NATS, metadata only."""
    import asyncio

    from collective.sync.events.connection import NatsOptions
    from collective.sync.events.service import Listener, flush
    from collective.sync.policy import PolicySettings
    from nats_servers import NatsNotInstalled, NatsServer

    try:
        server = NatsServer(root / "nats").start()
    except NatsNotInstalled as e:
        say(f"  (skipped: {e})")
        return
    options = NatsOptions.from_home(earth.home, servers=(server.url,))
    focus = PolicySettings(focus=("coolant pump failure",))  # what mars-1 cares about most
    heard: list = []
    stored_id: list[str] = []

    async def scenario() -> None:
        listener = Listener(mars.sync_port(), options, focus,
                            on_outcome=lambda o, pulled: heard.append((o, pulled)))
        task = asyncio.ensure_future(listener.run())
        await listener.ready.wait()
        await flush(earth.sync_port(), options)  # what earth-1 did so far, as events
        stored = earth.store("The coolant pump in module C has a cracked impeller. Replace it before restart.",
                             importance=0.95, tags=["pump"])
        stored_id.append(stored.memory.id)
        earth.push()
        await flush(earth.sync_port(), options)
        while not any(o.envelope and o.envelope["entity_id"] == stored.memory.id for o, _ in heard):
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # the sync.pushed behind it
        listener.stop.set()
        await task

    try:
        asyncio.run(scenario())
    finally:
        server.stop()
    action = {"now": "pulled now", "queue": "queued for the next sync window", "skip": "skipped"}
    others: dict[str, int] = {}
    for outcome, pulled in heard:
        if outcome.status != "handled":
            continue
        e = outcome.envelope
        if e["entity_id"] != stored_id[0]:
            others[outcome.decision.action] = others.get(outcome.decision.action, 0) + 1
            continue
        done = action[outcome.decision.action] if not pulled or pulled["pulled"] else "pull failed"
        say(f"  {mars.agent_id} heard {e['agent']} store a high-amplitude memory about the pump: {done} "
            f"({outcome.decision.reason}); {mars.agent_id} now holds it: "
            f"{mars.tables.memories.get(stored_id[0]) is not None}.")
    say(f"  The {sum(others.values())} earlier events (stores, pushes, pulls, the verdict) were decided too: "
        + ", ".join(f"{n} {action[a]}" for a, n in sorted(others.items())) + "; each decision is kept with its reason.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", help="Where to keep the agents (default: a new temporary folder).")
    args = parser.parse_args()
    root = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="cmem-demo-"))
    home, commons = root / "home", root / "commons"
    commons.mkdir(parents=True, exist_ok=True)
    url = f"file://{(commons / 'commons.db').resolve()}"

    heading("1. Three agents, each with its own Dolt database")
    agents = {name: Agent.init(name, home=home, exist_ok=True) for name in MEMORIES}
    for agent in agents.values():
        if not agent.remotes():
            agent.add_remote("origin", url)
    say(f"Agents live in {home}; the commons is {url}.")

    heading("2. Each agent stores what it learned (one Dolt commit per store)")
    commits: dict[str, list[str]] = {}  # each agent's store commits, in order
    for name, items in MEMORIES.items():
        for content, category, importance, stance in items:
            result = agents[name].store(content, category=category, importance=importance, stance=stance)
            commits.setdefault(name, []).append(result.commit)
            print(f"  {name:8} stored   {result.memory.summary}  (phase {result.memory.phase:.2f})")
    again = agents["earth-1"].store("The coolant pump in module C is safe to operate.")
    print(f"  earth-1  stored the pump memory again: reinforced, amplitude now {again.memory.amplitude:.2f}")
    after_two = commits["earth-1"][1]  # earth-1 had stored two memories, the rover's the second
    show_recall(agents["earth-1"], "is the coolant pump safe?")
    show_recall(agents["earth-1"], "what did the rover do?", as_of=after_two)
    print("  earth-1 log:")
    for commit in agents["earth-1"].log(n=4):
        print(f"    {commit.hash[:12]} {commit.author}: {commit.message}")

    heading("3. Sync window: everyone pushes, then pulls everyone else")
    for agent in agents.values():
        agent.push()
    for agent in agents.values():
        result = agent.pull()
        for peer in result["peers"]:
            s = peer["summary"]
            say(f"  {agent.agent_id} pulled {peer['peer']}: {s.get('new', 0)} new memories, "
                f"{s.get('constructive', 0)} agreed and were absorbed, {s.get('partial', 0)} partly agreed "
                f"and were linked, {s.get('destructive', 0)} contradicted and went to quarantine, "
                f"{s.get('independent', 0)} were new topics.")
    for agent in agents.values():  # a second round so every agent sees every case
        agent.push()
    for agent in agents.values():
        agent.pull()

    heading("4. What each agent now believes about the pump")
    for agent in agents.values():
        show_recall(agent, "is the coolant pump safe?")

    heading("5. The quarantine: a person reviews the contradiction")
    reviewer = agents["earth-1"]
    for dispute in reviewer.disputes():
        a, b = dispute["a"], dispute["b"]
        say(f"  dispute {dispute['dispute'][:12]} ({dispute['status']}, {dispute['case_count']} case(s) among "
            f"{', '.join(dispute['agents'])}): {a['origin_agent']} says {a['content']!r} "
            f"(+{len(a['copies'])} copies); {b['origin_agent']} says {b['content']!r} (+{len(b['copies'])} copies)")
    # the reviewer signs verdicts with a key of their own; each agent's operator decides to honour it
    surgeon = Home.at(home)
    if not reviewer_keys.key_path(surgeon, "flight-surgeon").exists():
        reviewer_keys.init(surgeon, "flight-surgeon")
    surgeon_key = reviewer_keys.load(surgeon, "flight-surgeon").public_key
    for agent in agents.values():
        agent.add_reviewer("flight-surgeon", surgeon_key)
    say("  Every agent honours verdicts signed by the flight surgeon's reviewer key.")
    before_verdict = {name: agent.log(n=1)[0].hash for name, agent in agents.items()}
    verdict = resolve_for_mars(reviewer)
    if verdict is not None:
        say(f"  The reviewer sides with mars-1 (keep {verdict['resolution']['keep']}) on dispute "
            f"{verdict['dispute'][:12]}: {len(verdict['resolved_cases'])} case(s) resolved, "
            f"{'pushed' if verdict['quarantine'].get('pushed') else 'not pushed'}.")
    for agent in agents.values():  # one sync round
        agent.pull()
        agent.push()
    for agent in agents.values():
        open_disputes = agent.disputes("open")
        peers = ", ".join(f"{p['agent']} {p['trust']:.2f}" for p in agent.peers())
        print(f"  {agent.agent_id:8} open disputes: {len(open_disputes)}; trust in peers: {peers}")

    heading("6. Recall after the verdict, and as of before it")
    for agent in agents.values():
        show_recall(agent, "is the coolant pump safe?")
    show_recall(agents["earth-2"], "is the coolant pump safe?", include_refuted=True)
    show_recall(agents["earth-1"], "is the coolant pump safe?", as_of=before_verdict["earth-1"])
    show_recall(agents["earth-1"], "who won the chess match last night?")  # about nothing held

    heading("7. Events: earth-1 tells its site what it learned; mars-1 decides to pull")
    show_events(root, agents["earth-1"], agents["mars-1"])

    dream_demo(agents["earth-1"])
    consensus_demo(agents)
    for agent in agents.values():
        agent.close()
    say(f"\nDone. Inspect with: CMEM_HOME={home} cmem status --agent earth-1")


GREENHOUSE = [
    "The greenhouse lights run twelve hours a day.",
    "Greenhouse lights run for twelve hours each day, says the crop log.",
    "The greenhouse lights run twelve hours a day to keep the lettuce growing.",
    "The greenhouse lights do not run twelve hours a day.",
]


def dream_demo(agent: Agent) -> None:
    """earth-1 learns more about the greenhouse, recalls it, and dreams on its own branch."""
    heading("8. earth-1 dreams: consolidation on a dream branch, merged back")
    for content in GREENHOUSE:
        agent.store(content, category="knowledge", importance=0.6)
    for _ in range(3):  # recalled together: co-access the dream folds into amplitude
        agent.recall("how long do the greenhouse lights run?", k=3)
    report = agent.dream(full=True)
    c = report["counts"]
    say(f"  dream {report['run']} on {report['branch']} ({report['mode']}, {report['status']}): "
        f"{c['selected']} memories, {c['constructive']} agreeing, {c['partial']} partly agreeing and "
        f"{c['destructive']} contradicting pairs; {c['clusters']} clusters, coherence {report['coherence']:.2f}; "
        f"field stability {report['stability']['before']:.3f} -> {report['stability']['after']:.3f}.")
    for item in report["strengthened"]:
        print(f"    strengthened  {agent.get(item['id']).summary}  (amplitude {item['amplitude']:.3f})")
    print(f"    linked        {c['linked']} links between related memories")
    for pair in report["disputed"]:
        print(f"    disputed      {agent.get(pair['a']).summary}  <->  {agent.get(pair['b']).summary}")
    for made in report["synthesised"]:
        print(f"    synthesised   {made['summary']}  ({len(made['parents'])} parents)")


def consensus_demo(agents: dict[str, Agent]) -> None:
    """mars-1 proposes a memory for main; two other agents endorse it; it is promoted,
    and another agent's pull brings the consensus in."""
    heading("9. Consensus: a memory two other agents endorse is promoted to main")
    mars, earth, earth2 = agents["mars-1"], agents["earth-1"], agents["earth-2"]
    storm = mars.recall("dust storm over the landing site", k=1)[0].memory
    mars.promote(storm.id, note="seen by the orbiter and the weather mast")
    say(f"  mars-1 proposes {storm.summary!r} for main.")
    for agent in (earth, earth2):
        agent.pull()
        result = agent.endorse(storm.id)
        say(f"  {agent.agent_id} endorses it: {result['status']}, endorsed by {', '.join(result['endorsements'])}.")
    promotion = earth2.promotions("promoted")[0]
    say(f"  One commit on the commons' main, {promotion['commit'][:12]}, names its endorsers "
        f"({', '.join(promotion['endorsements'])}); nothing else writes main.")
    mars.pull()
    say("  mars-1 pulls; its recall --consensus answers only from what the collective agreed:")
    show_recall(mars, "is a dust storm coming?", consensus=True)


if __name__ == "__main__":
    main()
