"""A pull says how far it got, stage by stage and peer by peer, to whoever watches."""

from __future__ import annotations

from collective.agent import Agent


def test_a_pull_reports_each_stage_of_each_peer_to_the_end(tmp_path, hash_embedder):
    home = tmp_path / "home"
    earth = Agent.init("earth-1", home=home, embedder=hash_embedder)
    mars = Agent.init("mars-1", home=home, embedder=hash_embedder)
    try:
        for agent in (earth, mars):
            agent.add_remote("origin", f"file://{tmp_path / 'commons.db'}")
        earth.store_many([{"content": f"The coolant pump in module {m} is safe to operate."} for m in "ABC"])
        mars.store_many([{"content": f"The coolant pump in module {m} is not safe to operate."} for m in "ABC"])
        mars.push()
        seen: list[tuple[str, int, int]] = []
        earth.pull(progress=lambda stage, done, total: seen.append((stage, done, total)))
    finally:
        earth.close()
        mars.close()
    stages = list(dict.fromkeys(stage for stage, _, _ in seen))
    assert stages == ["mars-1: read", "mars-1: judge", "mars-1: write"]
    for stage in stages:
        last = [(done, total) for s, done, total in seen if s == stage][-1]
        assert last[0] == last[1] > 0  # every stage reported its end
