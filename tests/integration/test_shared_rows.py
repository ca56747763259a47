"""Shared rows written whole: a pull that raises cases it already holds and opens new ones
in the same write takes every peer.

Three agents with fifty memories each, some texts the same on all three, some that
contradict across them, one file commons. Everyone pushes, then everyone pulls every
peer. The cases the first puller shares come back to the others as rows read from the
table (every column, `dispute` of schema 7 included), while the cases their own pulls
open are new: one write of both once lost a column and failed the pull on every retry
(KeyError: 'dispute'), so those agents never took that peer's memories.
"""

from __future__ import annotations

import itertools

AGENTS = ("earth-1", "earth-2", "mars-1")
SHARED = 8        # the same text on all three agents
DISPUTED = 14     # one subject each: affirmed by some agents, denied by the others
PER_AGENT = 50

SUBJECTS = ["coolant pump", "oxygen scrubber", "water recycler", "airlock seal", "solar array", "battery bank",
            "radio mast", "greenhouse fan", "rover axle", "drill motor", "hab heater", "dust filter",
            "comms relay", "nitrogen valve", "cargo crane", "med scanner", "fuel cell", "antenna gimbal"]
PLACES = ["module A", "module B", "the north lock", "the east wing", "bay three", "the lower deck"]
WORDS = ["amber", "basalt", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kelp",
         "lichen", "magnet", "nectar", "obsidian", "pumice", "quartz", "raven", "saffron", "tundra", "umber",
         "violet", "willow", "xenon", "yarrow", "zephyr", "anchor", "bramble", "cinder", "dune", "estuary",
         "falcon", "glacier", "heron", "iris", "jasper", "kestrel", "lantern", "meadow", "nebula", "orchid"]


def _texts() -> dict[str, list[str]]:
    """Each agent's fifty texts: the shared ones, its side of each disputed subject, and its own."""
    shared = [f"The {s} in {p} was inspected this week" for s, p in zip(SUBJECTS, itertools.cycle(PLACES))][:SHARED]
    out = {name: list(shared) for name in AGENTS}
    for n, (subject, place) in enumerate(zip(SUBJECTS[::-1], itertools.cycle(PLACES[::-1]))):
        if n == DISPUTED:
            break
        denier = AGENTS[n % 3]  # every pair of agents disagrees on some subjects
        for name in AGENTS:
            negation = "not " if name == denier else ""
            out[name].append(f"The {subject} in {place} is {negation}safe to operate")
    words = iter(itertools.permutations(WORDS, 3))
    for name in AGENTS:
        while len(out[name]) < PER_AGENT:
            a, b, c = next(words)
            out[name].append(f"{name} logged {a} {b} {c} samples")
    return out


def test_a_pull_raising_known_cases_and_opening_new_ones_takes_every_peer(sharing, home, tmp_path, hash_embedder):
    with sharing(home, f"file://{tmp_path / 'commons.db'}", hash_embedder) as agents:
        stored = {}
        for name, texts in _texts().items():
            stored[name] = [r.memory.id for r in agents[name].store_many([{"content": t} for t in texts])]
        for agent in agents.values():
            agent.push()
        for name, agent in agents.items():  # every pull succeeds, each peer merged
            result = agent.pull()
            assert {p["peer"]: p["status"] for p in result["peers"]} == {
                peer: "merged" for peer in AGENTS if peer != name}, result
            assert all(p["summary"]["cases"] for p in result["peers"])  # cases open on every pull
        for name, agent in agents.items():
            held = {r["id"]: r for r in agent.repo.select("memories", columns=("id", "absorbed_into", "disputed",
                                                                                "retracted", "refuted_by"))}
            recallable = {r["id"] for r in agent.tables.memories.recallable_rows(columns=("id",))}
            for peer in AGENTS:
                if peer == name:
                    continue
                # conserving: each of the peer's memories is here, as itself, an absorbed or a disputed copy
                missing = [m for m in stored[peer] if m not in held]
                assert not missing, f"{name} lacks {len(missing)} of {peer}'s memories"
                assert all(m in recallable or held[m]["absorbed_into"] or held[m]["disputed"]
                           for m in stored[peer])
