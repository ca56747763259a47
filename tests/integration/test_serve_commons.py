"""`cmem serve-commons`: prints its URL, serves a doltlite commons over HTTP, stops on SIGINT."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from collective.agent import Agent

pytestmark = pytest.mark.usefixtures("engine")  # kept per engine; the served commons is doltlite on both


def test_serve_commons_prints_its_url_serves_and_stops_on_a_signal(tmp_path, home, hash_embedder):
    folder = tmp_path / "served"
    folder.mkdir()
    server = subprocess.Popen([sys.executable, "-m", "collective.cli", "serve-commons", str(folder), "--allow-create"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with Agent.init("earth-1", home=home, embedder=hash_embedder, backend="doltlite") as agent:
            agent.store("served through the commons")
            agent.add_remote("origin", f"{url}/commons.db")
            agent.push()
        assert (folder / "commons.db").read_bytes()[:4] == b"CTLD"
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0 and "stopped" in err
