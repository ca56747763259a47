"""A command that changes the agent publishes its events as it ends: a NATS URL that is no
URL (from $CMEM_NATS_URL or cmem.toml) said nothing there, as if the server were only down,
and the events piled up in the outbox unseen."""

from __future__ import annotations

from tests.cli.test_refused_options import earth, invoke  # noqa: F401 (a fixture)


def test_a_changing_command_with_a_bad_nats_url_says_its_events_were_not_published(earth):  # noqa: F811
    result = invoke(earth, "store", "The hatch is sealed", env={"CMEM_NATS_URL": "http://127.0.0.1:4222"})
    assert result.exit_code == 0, result.output  # the memory is stored: the events wait
    assert result.stderr.startswith("warning: events not published: nats: 'http://127.0.0.1:4222' is not a "
                                    "NATS URL (nats://host:port); ")
    assert result.stderr.endswith(" wait in the outbox\n") and result.stderr.count("\n") == 1
    down = invoke(earth, "store", "The hatch is open", env={"CMEM_NATS_URL": "nats://127.0.0.1:1"})
    assert down.exit_code == 0 and down.stderr == ""  # a server that does not answer is an outage: quiet
