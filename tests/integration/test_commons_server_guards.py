"""What a served commons refuses on its own: a bind beyond loopback without auth keys (before
anything listens), a new database unless the server was started to create one, and any
name that is not NAME.db. A real server on a free loopback port; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import http.client
import subprocess
import sys

import pytest

from collective.agent import Agent
from collective.errors import BadInput, StorageError
from collective.store.commons_server import CommonsServer

# Each write a push makes: the refs, the chunks, the commit; and a body the engine cannot parse.
WRITES = [("PUT", "refs", b"\x00\x00\x00junk"), ("POST", "chunks", b""), ("POST", "commit", b"")]


def request(server: CommonsServer, method: str, path: str, body: bytes | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path, body=body)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    return folder


def test_a_new_database_is_refused_without_allow_create(served, home, hash_embedder):
    with CommonsServer(served) as server:
        for method, endpoint, body in WRITES:
            assert request(server, method, f"/new.db/{endpoint}", body) >= 400, (method, endpoint)
        with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
            earth.add_remote("origin", server.url_for("commons.db"))
            earth.store("the ridge camera saw the dust storm first")
            with pytest.raises(StorageError, match="--allow-create"):
                earth.push()
    assert sorted(p.name for p in served.iterdir()) == []


def test_allow_create_lets_the_first_push_make_the_commons(served, home, hash_embedder):
    with CommonsServer(served, allow_create=True) as server, \
            Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
        earth.add_remote("origin", server.url_for("commons.db"))
        earth.store("the ridge camera saw the dust storm first")
        earth.push()
    assert (served / "commons.db").read_bytes()[:4] == b"CTLD"


def test_an_existing_commons_takes_pushes_and_pulls_without_allow_create(served, home, hash_embedder):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth, \
            Agent.init("mars-1", home=home, embedder=hash_embedder) as mars:
        earth.add_remote("file", f"file://{served / 'commons.db'}")
        earth.store("the ridge camera saw the dust storm first")
        earth.push("file")  # the commons exists before the server starts
        with CommonsServer(served) as server:
            for agent in (earth, mars):
                agent.add_remote("origin", server.url_for("commons.db"))
            mars.pull("origin")
            mars.store("mars-1 logged the storm at the crater rim")
            mars.push("origin")
            pulled = earth.pull("origin")
            assert [(p["peer"], p["status"].value) for p in pulled["peers"]] == [("mars-1", "merged")]
            assert pulled["refused"] == {}


def test_a_name_that_is_not_name_db_is_refused_even_with_allow_create(served, home, hash_embedder):
    (served / "notes").write_bytes(b"not a commons")
    with CommonsServer(served, allow_create=True) as server:
        for name in ("evil", "notes", "commons.db.bak", "commons.dbx"):
            for method, endpoint, body in WRITES:
                assert request(server, method, f"/{name}/{endpoint}", body) >= 400, (name, method, endpoint)
            assert request(server, "GET", f"/{name}/root") >= 400, name
        with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
            with pytest.raises(BadInput) as refused:  # the client refuses a name that is no NAME.db first
                earth.add_remote("origin", server.url_for("commons"))
            assert refused.value.field == "url"
            earth.repo._vc("remote", "add", "origin", server.url_for("commons"))  # and the server, past it
            earth.store("the ridge camera saw the dust storm first")
            with pytest.raises(StorageError):
                earth.push()
    assert sorted(p.name for p in served.iterdir()) == ["notes"]
    assert (served / "notes").read_bytes() == b"not a commons"


@pytest.mark.parametrize("bind", ["0.0.0.0", "192.0.2.1", "10.1.2.3"])
def test_a_bind_beyond_loopback_without_auth_keys_is_refused_before_listening(served, bind):
    # The constructor never listens (start does): refusing here is refusing before any socket.
    with pytest.raises(BadInput) as refused:
        CommonsServer(served, bind=bind)
    assert refused.value.field == "auth-keys" and "--auth-keys" in str(refused.value)
    CommonsServer(served, bind="127.0.0.2")  # loopback may stay open


@pytest.mark.parametrize("bind", ["192.0.2.1", "0.0.0.0"])
def test_serve_commons_beyond_loopback_without_auth_keys_exits_2_in_one_line(served, bind):
    done = subprocess.run([sys.executable, "-m", "collective.cli", "serve-commons", str(served), "--bind", bind],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"Error: auth-keys: serving on {bind} (not loopback) needs --auth-keys (with --cert, --key and "
        "--audience): anyone who reaches it could read and push"]  # and no engine warning: it never bound


@pytest.mark.parametrize("bind", ["localhost", "::1", "300.1.1.1", ""])
def test_a_bind_that_is_not_an_ipv4_address_is_bad_input(served, bind):
    with pytest.raises(BadInput) as refused:
        CommonsServer(served, bind=bind)
    assert refused.value.field == "bind"
