"""The review page answers only the Host names it was started for (no browser needed).

A page on another site whose DNS name an attacker points at 127.0.0.1 (DNS rebinding)
reaches `cmem review` with its own name in the Host header; it must neither read a form
(and its CSRF token) nor post a verdict. Raw requests to a real `cmem review` in a child
process, on loopback only.
"""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlencode, urlsplit

import pytest

from collective.agent import Agent
from review_support import Served, cmem


def ask(served: Served, method: str, path: str, *, host: str, headers: dict | None = None,
        form: dict | None = None) -> http.client.HTTPResponse:
    """One request to the page, whatever its Host header says (the connection is to loopback)."""
    address = urlsplit(served.url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    sent = {"Host": host, **(headers or {})}
    body = None
    if form is not None:
        body = urlencode(form)
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, path, body=body, headers=sent)
    response = connection.getresponse()
    response.body = response.read()
    connection.close()
    return response


def port_of(served: Served) -> int:
    return urlsplit(served.url).port


def open_dispute(world) -> tuple[str, str]:
    """The one open dispute on earth-2, and earth-2's head."""
    with Agent.open("earth-2", home=world.home) as agent:
        (dispute,) = agent.disputes("open")
        return dispute["dispute"], agent.log(1)[0].hash


def test_a_request_for_another_host_is_refused_and_sets_nothing(served):
    port = port_of(served)
    for path in ("/", "/disputes", "/promotions"):
        refused = ask(served, "GET", path, host=f"evil.example:{port}")
        assert refused.status == 400, path
        assert refused.getheader("set-cookie") is None and b"csrf" not in refused.body
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}", "127.0.0.1"):
        assert ask(served, "GET", "/", host=host).status == 200, host
    for host in (f"localhost:{port + 1}", f"localhost.:{port}", f"127.0.0.1.evil.example:{port}", "", "a b"):
        assert ask(served, "GET", "/", host=host).status == 400, host


def test_a_verdict_posted_for_another_host_is_refused_and_writes_nothing(served, world):
    port = port_of(served)
    dispute, head = open_dispute(world)
    own = f"127.0.0.1:{port}"
    shown = ask(served, "GET", f"/disputes/{dispute}", host=own)
    cookie = shown.getheader("set-cookie").split(";", 1)[0]
    csrf = re.search(rb'name="csrf" value="([0-9a-f]+)"', shown.body).group(1).decode()
    verdict = {"keep": "b", "note": "posted from another site", "csrf": csrf}
    for host in (f"evil.example:{port}", f"evil.example:{port + 1}"):
        posted = ask(served, "POST", f"/disputes/{dispute}", host=host, form=verdict,
                     headers={"Cookie": cookie, "Origin": f"http://{host}"})
        assert posted.status == 400, host
    assert open_dispute(world) == (dispute, head)  # nothing written: still open, the same head
    posted = ask(served, "POST", f"/disputes/{dispute}", host=own, form=verdict,
                 headers={"Cookie": cookie, "Origin": f"http://{own}"})
    assert posted.status == 303  # the same form, for the page's own host, is taken
    with Agent.open("earth-2", home=world.home) as agent:
        assert agent.disputes("open") == []


def test_allow_host_adds_a_name_and_a_bad_one_is_one_line(world):
    server = Served(world.home, "--allow-host", "review.example.org", "--allow-host", "10.0.0.7")
    try:
        port = port_of(server)
        assert set(server.info["hosts"]) >= {"review.example.org", "10.0.0.7", "localhost"}
        for host in (f"review.example.org:{port}", "review.example.org", f"10.0.0.7:{port}"):
            assert ask(server, "GET", "/", host=host).status == 200, host
        assert ask(server, "GET", "/", host=f"evil.example:{port}").status == 400
    finally:
        assert server.stop()[0] == 0
    for bad in ("review.example.org:8377", "*.example.org", "http://x", ""):
        done = cmem("review", "--allow-host", bad, "--agent", "earth-2", "--by", "ana", "--for", "1",
                    home=world.home)
        assert (done.returncode, done.stdout) == (2, ""), bad
        said = f"{bad!r} is not a host name or IP address (give it without a port)" if bad else \
            "must not be empty (empty: was the variable set in this shell?)"
        assert done.stderr.strip().splitlines() == [f"Error: allow-host: {said}"]


@pytest.mark.parametrize("host", ["10.0.0.7", "0.0.0.0"])
def test_off_loopback_the_page_answers_its_address_and_loopback_only_when_it_listens_there(host):
    from collective.review import page_hosts
    hosts = page_hosts(host, ["review.example.org"])
    assert {host, "review.example.org"} <= hosts
    assert ("localhost" in hosts) == (host == "0.0.0.0")  # every address includes loopback
