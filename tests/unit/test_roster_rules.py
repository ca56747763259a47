"""What makes a roster version one to follow (roster/rules.py): threshold signatures of its
own owners and of the last version's, one version after another, never back, never forked."""

from __future__ import annotations

from dataclasses import replace

import pytest

from collective.identity import Identity
from collective.roster import rules
from collective.roster.record import Member, Roster


@pytest.fixture
def people(tmp_path):
    return {name: Identity.generate(tmp_path / f"{name}.pem") for name in ("ana", "bo", "cy", "eve")}


def first(people, owners=("ana", "bo"), threshold=2) -> Roster:
    roster = Roster("habitat", 1, tuple(Member(n, people[n].public_key) for n in owners), threshold)
    return rules.sign(roster, [people[n] for n in owners])


def nxt(roster: Roster, people, signers, **changes) -> Roster:
    return rules.sign(replace(roster, version=roster.version + 1, signatures=(), **changes),
                      [people[n] for n in signers])


def test_a_chain_signed_by_the_owners_is_followed_in_order(people):
    v1 = first(people)
    v2 = nxt(v1, people, ["ana", "bo"], agents=(Member("earth-1", people["cy"].public_key),))
    v3 = nxt(v2, people, ["ana", "bo"], endorsements=3)
    assert rules.follow(None, [v3, v1, v2]) == ([v1, v2, v3], None)
    assert rules.follow(v2, [v1, v2, v3]) == ([v3], None)


def test_below_the_threshold_of_the_last_owners_stops_the_chain(people):
    v1 = first(people)
    v2 = nxt(v1, people, ["ana"], threshold=1, reviewers=(Member("eve", people["eve"].public_key),))
    assert rules.follow(v1, [v1, v2]) == ([], rules.NOT_BY_OWNERS)
    assert rules.follow(None, [v1, v2]) == ([v1], rules.NOT_BY_OWNERS)


def test_new_owners_cannot_take_over_without_the_old(people):
    v1 = first(people)
    takeover = nxt(v1, people, ["eve"], owners=(Member("eve", people["eve"].public_key),), threshold=1)
    assert rules.follow(v1, [takeover]) == ([], rules.NOT_BY_OWNERS)
    handed = nxt(v1, people, ["ana", "bo", "eve"], owners=(Member("eve", people["eve"].public_key),), threshold=1)
    assert rules.follow(v1, [handed]) == ([handed], None)


def test_a_first_version_must_carry_its_own_threshold(people):
    v1 = rules.sign(replace(first(people), signatures=()), [people["ana"]])
    assert rules.follow(None, [v1]) == ([], rules.UNSIGNED)


def test_rollback_fork_and_other_collective_are_refused(people):
    v1 = first(people)
    v2 = nxt(v1, people, ["ana", "bo"], endorsements=3)
    assert rules.follow(v2, [v1]) == ([], rules.ROLLED_BACK)
    fork = nxt(v1, people, ["ana", "bo"], endorsements=4)
    assert rules.follow(v2, [v1, fork]) == ([], rules.FORKED)
    other = nxt(v2, people, ["ana", "bo"], collective="elsewhere")
    assert rules.follow(v2, [v1, v2, other]) == ([], rules.OTHER_COLLECTIVE)


def test_a_tampered_version_no_longer_verifies(people):
    v1 = first(people)
    v2 = nxt(v1, people, ["ana", "bo"])
    forged = replace(v2, reviewers=(Member("eve", people["eve"].public_key),))  # signatures kept
    assert rules.follow(v1, [forged]) == ([], rules.UNSIGNED)
    assert Roster.from_row(v2.to_row()) == v2
