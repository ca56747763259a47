"""Pictures from the CLI (--plot) of a real agent: trust over time once it has pulled a
peer that agrees and one that contradicts, stability once it has dreamed, a dream's
clusters; a picture asked for in a format it cannot be is refused before any work."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from collective.agent import Agent

from tests.integration.dream_helpers import store_topics


def texts(path) -> str:
    return " ".join(el.text for el in ET.parse(path).getroot().iter() if el.text and el.text.strip())


def test_the_cli_draws_trust_stability_and_a_dreams_clusters(home, tmp_path, real_embedder, cmem):
    url = f"file://{tmp_path / 'commons.db'}"
    agents = {name: Agent.init(name, home=home, embedder=real_embedder) for name in ("earth-1", "mars-1")}
    try:
        for agent in agents.values():
            agent.add_remote("origin", url)
        earth, mars = agents["earth-1"], agents["mars-1"]
        store_topics(earth, topics=3, per=5)
        earth.store("The coolant pump in module C is not safe to operate.")  # mars-1 contradicts it
        mars.store("The coolant pump in module C is safe to operate.")
        mars.push()
        earth.pull()
        head = earth.log(1)[0].hash
    finally:
        for agent in agents.values():
            agent.close()
    refused = cmem("dream", "--agent", "earth-1", "--plot", str(tmp_path / "clusters.txt"))
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr == f"Error: plot: '{tmp_path / 'clusters.txt'}' must end in .svg or .png\n"
    with Agent.open("earth-1", home=home, embedder=real_embedder) as agent:
        assert agent.log(1)[0].hash == head  # refused before the dream ran
    drawn = {name: tmp_path / f"{name}.svg" for name in ("clusters", "stability", "peers", "mars")}
    for args, picture in ((("dream",), "clusters"), (("status",), "stability"), (("agents",), "peers"),
                          (("trust", "mars-1"), "mars")):
        done = cmem(*args, "--agent", "earth-1", "--plot", str(drawn[picture]), "--json")
        assert done.exit_code == 0, done.output
        assert done.stderr == f"drew {drawn[picture]}\n"
    assert "cluster 0: 5" in texts(drawn["clusters"])  # three topics of five memories: three clusters of five
    assert "before the dream" in texts(drawn["stability"])
    assert "mars-1" in texts(drawn["peers"]) and "Trust in mars-1" in texts(drawn["mars"])
    png = tmp_path / "peers.png"
    assert cmem("agents", "--agent", "earth-1", "--plot", str(png)).exit_code == 0
    assert png.read_bytes().startswith(b"\x89PNG")
