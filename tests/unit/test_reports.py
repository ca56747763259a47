"""The front door's typed shapes (collective/reports.py): what the docs write, and what a value
that strays from its shape is told."""

from __future__ import annotations

from collective.reports import PeerPullReport, PullReport, PushReport, documented, mismatches, shape_text


def test_the_written_shape_names_every_field_and_its_note_in_order():
    assert shape_text(PushReport).startswith('{"remote", "branch", "head", "quarantine" (the cases shared')
    assert '"peers": [{"peer", "head", "status" (merged, unchanged, refused, planned)' in shape_text(PullReport)


def test_the_peer_statuses_named_are_the_ones_a_pull_gives():
    from collective.model.enums import PeerStatus
    from collective.reports import PEER_STATUSES

    assert PEER_STATUSES.split(", ") == list(PeerStatus)


def test_a_value_missing_a_key_or_holding_another_is_told_where():
    peer = dict.fromkeys(PeerPullReport.__annotations__)
    report = {**dict.fromkeys(PullReport.__annotations__), "peers": [peer, {**peer, "extra": 1}]}
    assert mismatches(report, PullReport) == [".peers[1].extra not in PeerPullReport"]
    del report["dreams"]
    assert mismatches(report, PullReport) == [".dreams missing", ".peers[1].extra not in PeerPullReport"]
    assert mismatches([], PushReport) == ["the value is list, not an object"]


def test_documented_appends_the_shape_to_a_docstring_at_its_indent():
    @documented(PushReport, lead="Returns", for_click=False)
    def push():
        """Push.

        More.
        """
    (line,) = [line for line in push.__doc__.splitlines() if "Returns" in line]
    assert line.startswith('        Returns {"remote"') and "\b" not in push.__doc__
