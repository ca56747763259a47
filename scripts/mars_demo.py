"""Earth and Mars on a compressed clock: two sites, two commons, one relay.

earth-1 and earth-2 share Earth's commons, mars-1 Mars's. Inside a site the agents
sync every 5 minutes (`collective.sync.windows.Scheduler`); between the planets only the commons
meet, through a relay (`collective.sync.relay.Relay`) that copies branches inside the link's
windows and 12 minutes (the light time) late. While the link is closed the planets
learn different things: earth-1 that the coolant pump in module C is safe, mars-1 that
it is not. In the first window the contradiction crosses and reaches quarantine on both
planets, a person on Earth resolves it, and the verdict reaches Mars in the next window.

It tells the story as it goes: the two claims, who holds what each time the link opens
and closes, the verdict, and what each planet recalls at the end. Three hours pass on a
virtual clock in seconds. Run with `make demo-mars`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home
from collective.sync.clock import VirtualClock
from collective.sync.link import Link, Site
from collective.sync.relay import Relay
from collective.sync.schedule import Schedule, SyncSettings
from collective.sync.windows import Scheduler

START = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
LINK_WINDOWS = ("2026-12-01T10:30Z/2026-12-01T11:00Z", "2026-12-01T12:30Z/2026-12-01T13:00Z")
LIGHT_TIME = 12 * 60  # seconds, one way
END = START + timedelta(hours=3)
SITE_OF = {"earth-1": "earth", "earth-2": "earth", "mars-1": "mars"}
SAFE = "The coolant pump in module C is safe to operate."
UNSAFE = "The coolant pump in module C is not safe to operate."
CLAIMS = {SAFE: "earth-1's claim (safe)", UNSAFE: "mars-1's claim (not safe)"}
LEARNED = {  # (minutes after 10:00, agent, text, importance)
    (2, "earth-1", SAFE, 0.7),
    (4, "earth-2", "Solar array B produced 41 kWh yesterday.", 0.5),
    (5, "mars-1", UNSAFE, 0.8),
    (6, "mars-1", "Dust storm reaches the landing site within three days: EVA cancelled.", 1.0),
    (8, "mars-1", "Sample 14 from the crater rim contains hematite.", 0.5),
}
VERDICT_AT = START + timedelta(minutes=75)
VERDICT_NOTE = "inspection found a cracked impeller"
QUESTIONS = ("Is the coolant pump in module C safe to operate?", "Is a dust storm coming?")


class Demo:
    def __init__(self, root: Path):
        self.clock = VirtualClock(START)
        self.lines: list[tuple[datetime, str, str]] = []
        sites = {name: Site(name, f"file://{root / f'{name}-commons.db'}") for name in ("earth", "mars")}
        self.agents: dict[str, Agent] = {}
        self.schedulers: dict[str, Scheduler] = {}
        for name, site in SITE_OF.items():
            agent = Agent.init(name, home=root / site)
            agent.add_remote("origin", sites[site].commons)
            agent.push()
            self.agents[name] = agent
            self.schedulers[name] = Scheduler(agent.sync_port(), SyncSettings.build(interval=5), self.clock,
                                              on_work=lambda w, r, n=name: self.work(n, w, r))
        made = reviewer_keys.init(Home.at(root / "earth"), "ana")
        for agent in self.agents.values():
            agent.add_reviewer("ana", made["public_key"])
        link = Link(sites["earth"], sites["mars"], Schedule.parse(LINK_WINDOWS), LIGHT_TIME)
        self.relay = Relay(link, root / "relay", self.clock, report=self.copied)
        self.cases: dict[str, dict[str, str]] = {name: {} for name in self.agents}
        self.link_open = False
        self.lanes: dict[str, list[tuple[float, str]]] = {"Earth": [], "Mars": []}  # the timeline's marks
        self.crossings: list[tuple[str, float, str, float]] = []
        self.departed: dict[tuple[str, str, str], float] = {}

    def say(self, who: str, text: str) -> None:
        self.lines.append((self.clock.now(), who, text))

    def minutes(self) -> float:
        return (self.clock.now() - START).total_seconds() / 60

    def mark(self, name: str, label: str) -> None:
        """A mark on the planet's lane of the timeline (--plot)."""
        self.lanes["Mars" if SITE_OF.get(name) == "mars" else "Earth"].append((self.minutes(), label))

    def copied(self, e: dict) -> None:
        key, route = (e["from"], e["to"], e["branch"]), f"{e['from']} -> {e['to']}: {e['branch']}"
        if e["event"] == "departed":
            self.departed[key] = self.minutes()
            self.say("link", f"{route} leaves ({e['priority']})")
        elif e["event"] == "landed":
            if key in self.departed:  # an arrow on the timeline, from departure to landing
                self.crossings.append((e["from"].capitalize(), self.departed.pop(key), e["to"].capitalize(),
                                       self.minutes()))
            self.say("link", f"{route} lands on {e['to']}'s commons")
        else:
            self.say("link", f"{route} refused: {e['reason']}")

    def work(self, name: str, work, result: dict) -> None:
        pull = result.get("pull") or {}
        if pull.get("new"):
            self.say(name, f"pulled {', '.join(pull['peers'])}: {pull['new']} new memory(ies)")
        if (pull.get("cases") or {}).get("pushed"):
            self.say(name, f"case(s) pushed to {SITE_OF[name]}'s commons at once")
        if work.kind == "priority":
            self.say(name, f"priority push: {len(work.detail['flagged'])} memory(ies) above amplitude 0.9")

    def tick(self) -> None:
        now = self.clock.now()
        for minute, name, text, importance in sorted(LEARNED):
            if now == START + timedelta(minutes=minute):
                self.agents[name].store(text, importance=importance)
                self.say(name, f"learns {text!r}" + (" (priority)" if importance > 0.9 else ""))
                if text in CLAIMS:
                    self.mark(name, f"{name}: {'safe' if text == SAFE else 'not safe'}")
        is_open = Schedule.parse(LINK_WINDOWS).window_at(now) is not None
        if is_open != self.link_open:
            self.link_open = is_open
            self.say("link", "window opens" if is_open else "window closes")
            self.holdings()
        self.relay.step()
        for scheduler in self.schedulers.values():
            scheduler.step()
        if now == VERDICT_AT:
            self.resolve()
        self.watch_cases()

    def holdings(self) -> None:
        """Who holds which of the two claims, and how: flagged disputed, or refuted."""
        for name, agent in self.agents.items():
            held = []
            for memory in agent.list_memories(limit=100, include_refuted=True)["memories"]:
                if memory["content"] in CLAIMS:
                    flag = " refuted" if memory["refuted_by"] else " disputed" if memory["disputed"] else ""
                    held.append(f"{CLAIMS[memory['content']]}{flag}")
            cases = ", ".join(f"case {case[:8]} {status}" for case, status in sorted(self.cases[name].items()))
            self.say(name, f"holds {'; '.join(held) or 'neither claim'}" + (f"; {cases}" if cases else ""))

    def resolve(self) -> None:
        earth = self.agents["earth-2"]
        for dispute in earth.disputes(status="pending"):
            keep = "a" if dispute["a"]["origin_agent"] == "mars-1" else "b"  # the inspection sided with Mars
            earth.resolve_dispute(dispute["dispute"], keep=keep, note=VERDICT_NOTE, by="ana")
            self.say("ana", f"resolves dispute {dispute['dispute'][:8]} on Earth: keep {CLAIMS[UNSAFE]} "
                            f"({VERDICT_NOTE}); {CLAIMS[SAFE]} is refuted")
            self.mark("earth-2", "ana's verdict: not safe")

    def watch_cases(self) -> None:
        for name, agent in self.agents.items():
            for case in agent.cases():
                if self.cases[name].get(case["id"]) != case["status"]:
                    if case["status"] in ("pending", "resolved") and not self.cases[name]:
                        self.mark(name, f"{name}: disputed")
                    elif case["status"] == "resolved":
                        self.mark(name, f"{name}: resolved")
                    self.cases[name][case["id"]] = case["status"]
                    self.say(name, f"holds case {case['id'][:8]} ({case['agent_a']} vs {case['agent_b']}): "
                                   f"{case['status']}")

    def run(self) -> bool:
        print_claims()
        while self.clock.now() <= END:
            self.tick()
            self.clock.advance(60)
        for (at, who, text) in self.lines:
            print(f"{at:%H:%M}  {who:<8} {text}")
        self.recall_at_the_end()
        views = {name: sorted(cases.items()) for name, cases in self.cases.items()}
        same = len({repr(v) for v in views.values()}) == 1 and views["mars-1"] and \
            all(status == "resolved" for _, status in views["mars-1"])
        print(f"\nevery agent on both planets holds the same resolved case(s): {'yes' if same else 'NO'}")
        return bool(same)

    def recall_at_the_end(self) -> None:
        """What each planet's agents recall at 13:00, the verdict taken everywhere."""
        print(f"\nWhat each planet recalls at {END:%H:%M}:")
        for name, agent in self.agents.items():
            print(f"  {name} on {SITE_OF[name].capitalize()}:")
            for question in QUESTIONS:
                hits = agent.recall(question, k=1, now=END)
                answer = f"{hits[0].memory.content}  ({hits[0].memory.origin_agent})" if hits else "nothing recalled"
                print(f"    {question:<52} {answer}")

    def plot(self, path: Path) -> None:
        """The day as two swimlanes: what each planet learned and decided, the copies crossing
        the link (light time late), and the windows it was open."""
        from collective import plots
        windows = [tuple((datetime.fromisoformat(end.replace("Z", "+00:00")) - START).total_seconds() / 60
                         for end in w.split("/")) for w in LINK_WINDOWS]
        path.write_bytes(plots.timeline(self.lanes, self.crossings, windows, fmt=plots.plot_format(str(path)),
                                        unit="minutes after 10:00 UTC", title="Earth and Mars: one pump, two claims"))
        print(f"drew {path}")

    def close(self) -> None:
        self.relay.close()
        for agent in self.agents.values():
            agent.close()


def print_claims() -> None:
    print("Two claims about one pump, made apart while the link is down:")
    for minute, name, text, _ in sorted(LEARNED):
        if text in CLAIMS:
            print(f"  {START + timedelta(minutes=minute):%H:%M}  {name:<8} {text}")
    windows = ", ".join(f"{w.split('/')[0][11:16]}-{w.split('/')[1][11:16]}" for w in LINK_WINDOWS)
    print(f"The link opens {windows} UTC; light takes {LIGHT_TIME // 60} minutes each way.\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="Build the sites here and keep them (default: a temporary folder).")
    parser.add_argument("--plot", type=Path, metavar="FILE", help="Also draw the day as two swimlanes (.svg or .png).")
    args = parser.parse_args()
    if args.plot is not None:
        from collective import plots
        from collective.errors import BadInput, one_line
        try:
            plots.plot_format(str(args.plot))
        except BadInput as e:
            parser.exit(2, f"error: {one_line(e)}\n")
    with tempfile.TemporaryDirectory(prefix="cmem-mars-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        demo = Demo(root)
        try:
            told = demo.run()
            if args.plot is not None:
                demo.plot(args.plot)
            return 0 if told else 1
        finally:
            demo.close()


if __name__ == "__main__":
    sys.exit(main())
