"""A real browser against a real review page: Playwright (PyPI) drives Debian's chromium
(scripts/install-chromium.sh) through executable_path; `cmem review` runs as a child
process on a free loopback port, over agents built with the real API.

Without chromium these tests skip, saying how to get it; with CMEM_REQUIRE_BROWSER=1
(CI) a missing chromium fails them instead.
"""

from __future__ import annotations

import os

import pytest
from review_support import NOT_PUMP, PUMP, ROVER, Served, World

from collective import reviewer_keys
from collective.agent import Agent
from collective.config import Home


def chromium_path() -> str:
    path = os.environ.get("CMEM_CHROMIUM", "/usr/bin/chromium")
    if not os.access(path, os.X_OK):
        message = f"no chromium at {path}: run scripts/install-chromium.sh (or set CMEM_CHROMIUM)"
        if os.environ.get("CMEM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"CMEM_REQUIRE_BROWSER=1 but {message}")
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def browser():
    """Module-scoped: Playwright's sync API keeps an event loop running in this thread while
    it is open, and later tests (MCP, events) start their own with asyncio.run."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    opened = context.new_page()
    opened.set_default_timeout(30_000)
    try:
        yield opened
    finally:
        context.close()


@pytest.fixture
def world(home, tmp_path, real_embedder) -> World:
    """earth-1 says the pump is safe, mars-1 that it is not; earth-2 pulls both (the dispute)
    and mars-1's proposal of its rover memory. earth-2 honours the reviewer ana."""
    commons = f"file://{tmp_path / 'commons.db'}"
    agents = {name: Agent.init(name, home=home, embedder=real_embedder) for name in ("earth-1", "earth-2", "mars-1")}
    try:
        for agent in agents.values():
            agent.add_remote("origin", commons)
        e1, e2, m1 = agents["earth-1"], agents["earth-2"], agents["mars-1"]
        made = reviewer_keys.init(Home.at(home), "ana")
        e2.add_reviewer("ana", made["public_key"])
        safe, not_safe = e1.store(PUMP).memory, m1.store(NOT_PUMP).memory
        rover = m1.store(ROVER).memory
        e1.push()
        m1.push()
        e2.pull()
        m1.promote(rover.id, note="the log says so")
        e2.pull()
        return World(home, {"safe": safe.id, "not safe": not_safe.id}, rover.id)
    finally:
        for agent in agents.values():
            agent.close()


@pytest.fixture
def served(world):
    server = Served(world.home)
    try:
        yield server
    finally:
        code, err = server.stop()
        assert (code, err.strip().splitlines()[-1:]) == (0, ["stopped"]), err


@pytest.fixture
def sam(world, real_embedder) -> dict:
    """A second reviewer, sam, whom earth-2 honours beside ana; earth-1 pulls (so it holds the
    dispute too) and honours both. Returns each reviewer's public key."""
    keys = {"sam": reviewer_keys.init(Home.at(world.home), "sam")["public_key"]}
    with Agent.open("earth-2", home=world.home, embedder=real_embedder) as e2:
        keys["ana"] = {r["name"]: r["public_key"] for r in e2.reviewers()}["ana"]
        e2.add_reviewer("sam", keys["sam"])
    with Agent.open("earth-1", home=world.home, embedder=real_embedder) as e1:
        e1.pull()
        for name, key in keys.items():
            e1.add_reviewer(name, key)
        assert len(e1.disputes("open")) == 1
    return keys
