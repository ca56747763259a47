"""What makes a roster version one to follow (roster/rules.py): threshold signatures of its
own owners and of the last version's, one version after another, never back, never forked."""

from __future__ import annotations

from dataclasses import replace

import pytest

from collective.identity import Identity
from collective.roster import rules, sources
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


# --- where the roster is learned (roster/sources.py) ------------------------------------
def chain(people, owners=("ana",), length=3) -> list[Roster]:
    versions = [first(people, owners, threshold=len(owners))]
    while len(versions) < length:
        versions.append(nxt(versions[-1], people, owners, endorsements=len(versions) + 1))
    return versions


def test_the_fingerprint_names_the_first_version_and_not_its_signatures(people):
    v1 = first(people)
    assert len(sources.fingerprint(v1)) == 64
    assert sources.fingerprint(replace(v1, signatures=v1.signatures[:1])) == sources.fingerprint(v1)
    assert sources.fingerprint(first(people, ("ana", "cy"))) != sources.fingerprint(v1)


def test_a_pinned_newcomer_refuses_another_chain_and_takes_the_pinned_one_from_a_peer(people):
    real, forged = chain(people, ("ana",)), chain(people, ("eve",), length=5)
    plan = sources.plan([], forged, {"earth-1": real, "rogue-1": forged}, pinned=sources.fingerprint(real[0]))
    assert plan.taken == real and plan.refused == {rules.FINGERPRINT_MISMATCH: [1]}
    assert plan.ignored == {"rogue-1": rules.FORKED} and plan.republish == sources.FORGED


def test_without_a_pin_the_commons_is_taken_on_first_sight(people):
    real, forged = chain(people, ("ana",)), chain(people, ("eve",))
    plan = sources.plan([], forged, {"earth-1": real}, pinned=None)
    assert plan.taken == forged and plan.ignored == {"earth-1": rules.FORKED} and plan.republish is None


def test_with_no_roster_on_the_commons_the_peers_must_agree(people):
    real, forged = chain(people, ("ana",)), chain(people, ("eve",))
    agreed = sources.plan([], None, {"earth-1": real, "mars-1": real[:2]}, pinned=None)
    assert agreed.taken == real and agreed.republish == sources.MISSING
    split = sources.plan([], None, {"earth-1": real, "rogue-1": forged}, pinned=None)
    assert split.taken == [] and split.refused == {rules.AMBIGUOUS: [1]} and split.republish is None


def test_a_holder_puts_back_a_commons_that_lost_fell_behind_or_was_forged(people):
    real = chain(people, ("ana",))
    assert sources.plan(real, None, {}, pinned=None).republish == sources.MISSING
    assert sources.plan(real, real[:2], {}, pinned=None).republish == sources.BEHIND
    assert sources.plan(real, real, {}, pinned=None).republish is None
    unsigned = nxt(real[-1], people, ["eve"])
    tail = sources.plan(real, [*real, unsigned], {}, pinned=None)
    assert tail.refused == {rules.UNSIGNED: [4]} and tail.republish == sources.FORGED


def test_another_first_version_is_overruled_only_by_a_pinned_holder(people):
    real, forged = chain(people, ("ana",)), chain(people, ("eve",))
    assert sources.plan(real, forged, {}, pinned=None).republish is None  # two first sights would fight
    pinned = sources.plan(real, forged, {}, pinned=sources.fingerprint(real[0]))
    assert pinned.refused == {rules.FORKED: [3]} and pinned.republish == sources.FORGED
    elsewhere = sources.plan(real, real, {}, pinned=sources.fingerprint(forged[0]))
    assert elsewhere.refused == {rules.FINGERPRINT_MISMATCH: [1]} and elsewhere.taken == []


def test_a_fork_its_owners_signed_stays_for_them(people):
    real = chain(people, ("ana",))
    fork = nxt(real[1], people, ["ana"], endorsements=9)
    plan = sources.plan(real, [*real[:2], fork], {}, pinned=sources.fingerprint(real[0]))
    assert plan.refused == {rules.FORKED: [3]} and plan.republish is None
