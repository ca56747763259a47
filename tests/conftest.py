"""Shared fixtures. Tests run against real engines: doltlite files in tmp_path,
and, for modules that use the `engine` fixture, a real Dolt sql-server too.

Without a dolt binary the Dolt runs skip, saying how to get one; with
CMEM_REQUIRE_DOLT=1 (CI) a missing dolt fails them instead.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections import Counter

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import pytest
from hypothesis import HealthCheck, settings

from collective.agent import Agent
from collective.embedders import HashEmbedder, default_embedder
from nats_servers import nats_cluster, nats_server  # noqa: F401  (fixtures: real nats-servers)

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("dev", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    """No test reads the developer's own home, default agent or doltlite credential choice."""
    for name in ("CMEM_HOME", "CMEM_AGENT", "CMEM_REMOTE", "CMEM_NATS_URL", "CMEM_BACKEND", "CMEM_DOLT_SERVER",
                 "CMEM_ROSTER", "DOLTLITE_CREDS_DIR", "DOLTLITE_CREDS_KID", "DOLTLITE_CA_FILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def hash_embedder():
    """Tiny deterministic embedder for fast unit tests."""
    return HashEmbedder(dim=64)


@pytest.fixture(scope="session")
def real_embedder():
    """The default all-MiniLM-L6-v2 model, loaded once per test session."""
    return default_embedder()


@pytest.fixture
def agent(home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as a:
        yield a


def pytest_collection_modifyitems(config, items):
    """Tests marked `heavy` (a minute or more on their own) start first: with the suite spread over
    workers, a long test begun last would leave the others idle while it finishes."""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)  # stable: the rest keep their order


# --- both engines ---------------------------------------------------------------

def dolt_required() -> bool:
    return os.environ.get("CMEM_REQUIRE_DOLT") == "1"


def require_dolt():
    """The dolt binary, or a skip saying how to get one (a failure under CMEM_REQUIRE_DOLT=1)."""
    from collective.store.dolt_process import DoltNotInstalled, find_dolt
    try:
        return find_dolt()
    except DoltNotInstalled as e:
        if dolt_required():
            pytest.fail(f"CMEM_REQUIRE_DOLT=1 but {e}")
        pytest.skip(f"{e}")


@pytest.fixture
def dolt_binary():
    return require_dolt()


# The Dolt user agents fetch from and push to a remotesapi commons as; Dolt takes its
# password from the agents' own sql-server (DOLT_REMOTE_PASSWORD).
COMMONS_USER, COMMONS_PASSWORD = "commons-agent", "commons-agent-password"


_SESSION_DOLT: dict = {}  # this process's session server: its address and the databases it began with


@pytest.fixture(scope="session")
def dolt_server(tmp_path_factory):
    """One Dolt sql-server for the session (mysql://root:PASSWORD@127.0.0.1:PORT); each test's
    agents get their own databases, dropped when the test ends (pytest_runtest_teardown below),
    so the server holds only the running test's. It knows the password of a remotesapi commons' user."""
    from collective.store.dolt_process import ManagedDoltServer
    require_dolt()
    server = ManagedDoltServer(tmp_path_factory.mktemp("dolt-server"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DOLT_REMOTE_PASSWORD", COMMONS_PASSWORD)
        server.ensure_running()
    address = server.address("")
    _SESSION_DOLT.update(address=address, kept=set(_databases(address)))
    yield server.url()
    _SESSION_DOLT.clear()
    server.stop()


def _databases(address) -> list[str]:
    from collective.store.doltserver import connect
    conn = connect(address)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SHOW DATABASES")
            return [row[0] for row in cursor.fetchall()]
    finally:
        conn.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    """After the test's fixtures closed its agents: drop the databases it made on the session
    server. Every test makes its own, so keeping them only grew the server (5 GB by the end)."""
    yield
    if not _SESSION_DOLT:
        return
    from collective.store.doltserver import drop_database
    address = _SESSION_DOLT["address"]
    for name in set(_databases(address)) - _SESSION_DOLT["kept"]:
        drop_database(dataclasses.replace(address, database=name))


@contextlib.contextmanager
def _remotesapi_commons(folder):
    from collective.store.dolt_process import ManagedDoltServer
    from collective.store.doltserver import create_database
    host = ManagedDoltServer(folder, remotesapi=True)
    try:
        create_database(host.address("commons"))
        host.add_user(COMMONS_USER, COMMONS_PASSWORD)
        yield f"http://{COMMONS_USER}@127.0.0.1:{host.remotesapi_port()}/commons"
    finally:
        host.stop()


@pytest.fixture(scope="session")
def remotesapi_commons_at():
    """`with remotesapi_commons_at(folder) as url:` another Dolt sql-server serving database
    `commons` over remotesapi to COMMONS_USER (the URL names the user); agents on `dolt_server`
    reach it."""
    require_dolt()
    return _remotesapi_commons


@pytest.fixture(params=["doltlite", "dolt"])
def engine(request, monkeypatch):
    """Runs a test once per engine: new agents are created on it (CMEM_BACKEND)."""
    if request.param == "dolt":
        monkeypatch.setenv("CMEM_DOLT_SERVER", request.getfixturevalue("dolt_server"))
    monkeypatch.setenv("CMEM_BACKEND", request.param)
    return request.param


_ENGINE_ID = re.compile(r"\[(?:[^\]]*-)?(doltlite|dolt)(?:-[^\]]*)?\]")


def pytest_terminal_summary(terminalreporter):
    """The count of behaviour tests run per engine, so a skipped engine shows."""
    counts: dict[str, Counter] = {"doltlite": Counter(), "dolt": Counter()}
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            match = _ENGINE_ID.search(getattr(report, "nodeid", ""))
            if match and getattr(report, "when", "call") in ("call", "setup"):
                if outcome == "passed" and report.when != "call":
                    continue
                counts[match.group(1)][outcome] += 1
    if any(counts.values()):
        terminalreporter.write_sep("-", "behaviour tests per engine")
        for name, c in counts.items():
            terminalreporter.write_line(f"{name:9} passed {c['passed']}, failed {c['failed'] + c['error']}, "
                                        f"skipped {c['skipped']}")


# --- judged pairs outside a database ----------------------------------------------

@pytest.fixture
def loose_memory():
    """Memories that never touch a database: for judging pairs in this process and in workers."""
    import numpy as np

    from collective.model import Memory, content_hash, uuid7

    def make(content: str) -> Memory:
        stamp = "2026-11-01T00:00:00.000000Z"
        return Memory(id=uuid7(), content=content, summary=content, vector=np.ones(4, dtype=np.float32) / 2,
                      dim=4, model_version="m", content_hash=content_hash(content), amplitude=0.5, phase=0.0,
                      category="knowledge", origin_agent="mars-1", created_at=stamp, updated_at=stamp)
    return make


@pytest.fixture
def analysed_texts(monkeypatch) -> list[str]:
    """Texts the rule judge analyses in this process (a forked child appends to its own copy)."""
    from collective import judge

    seen: list[str] = []
    real = judge.analyse_text
    monkeypatch.setattr(judge, "analyse_text", lambda text: seen.append(text) or real(text))
    return seen
