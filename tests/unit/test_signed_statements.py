"""Signed statements about keys and memories: rotations chain from the key held,
endorsements verify against the endorser's key, and a key file is private."""

from __future__ import annotations

import base64
import os

import pytest

from collective import identity as identity_module
from collective.identity import (Identity, KeyFileError, endorsement, endorsement_valid, rotation_claim,
                                 rotation_reaches, verify)

AT = "2026-12-01T00:00:00.000000Z"


def key(tmp_path, name: str) -> Identity:
    return Identity.generate(tmp_path / f"{name}.pem")


def rotation(agent: str, old: Identity, new: Identity, *, signer: Identity | None = None) -> dict:
    return {"agent_id": agent, "old_key": old.public_key, "new_key": new.public_key, "rotated_at": AT,
            "signature": (signer or old).sign(rotation_claim(agent, old.public_key, new.public_key, AT))}


def test_a_chain_of_rotations_reaches_the_new_key_only_when_each_step_is_signed_by_the_one_before(tmp_path):
    first, second, third, stranger = (key(tmp_path, n) for n in ("first", "second", "third", "stranger"))
    chain = [rotation("mars-1", first, second), rotation("mars-1", second, third)]
    assert rotation_reaches(first.public_key, third.public_key, chain)
    assert rotation_reaches(second.public_key, third.public_key, chain)
    assert not rotation_reaches(third.public_key, first.public_key, chain)  # never backwards
    forged = [rotation("mars-1", first, second, signer=stranger), chain[1]]
    assert not rotation_reaches(first.public_key, third.public_key, forged)
    other_agent = [rotation("earth-1", first, second)]  # a rotation names its agent
    assert not rotation_reaches(first.public_key, second.public_key,
                                [{**other_agent[0], "agent_id": "mars-1"}])


def test_an_endorsement_verifies_against_its_endorser_only(tmp_path):
    endorser, other = key(tmp_path, "endorser"), key(tmp_path, "other")
    row = endorsement(endorser, "01a0-m", "earth-2", AT)
    assert endorsement_valid(row, endorser.public_key)
    assert not endorsement_valid(row, other.public_key)
    assert not endorsement_valid(row.replace(memory_id="01a0-n"), endorser.public_key)


def test_a_signature_verifies_its_own_bytes_only(tmp_path):
    signer, other = key(tmp_path, "signer"), key(tmp_path, "other")
    claim = b"The coolant pump is safe."
    assert verify(signer.public_key, claim, signer.sign(claim))
    assert not verify(other.public_key, claim, signer.sign(claim))
    assert not verify(signer.public_key, claim + b" Not.", signer.sign(claim))
    # A signature of "safe." cut short by its last byte, shown with that byte put before the
    # claim: read with the claim as one buffer it is whole again, over other bytes than these
    whole = base64.b64decode(signer.sign(b"The coolant pump is safe."))
    spliced = base64.b64encode(whole[:-1]).decode()
    assert not verify(signer.public_key, whole[-1:] + b"The coolant pump is safe.", spliced)
    for bad_key in ("", "not base64!", base64.b64encode(b"short").decode()):
        assert not verify(bad_key, claim, signer.sign(claim))
    for bad_signature in ("", "AAAA", signer.sign(claim)[:-4]):
        assert not verify(signer.public_key, claim, bad_signature)


def test_a_key_file_others_can_read_is_refused(tmp_path):
    made = key(tmp_path, "agent")
    path = tmp_path / "agent.pem"
    assert os.stat(path).st_mode & 0o777 == 0o600
    os.chmod(path, 0o640)
    with pytest.raises(KeyFileError, match=r"mode 0640\): run chmod 600"):
        Identity.load(path)
    os.chmod(path, 0o600)
    assert Identity.load(path).public_key == made.public_key


@pytest.mark.parametrize("count", [0, 3, identity_module.FORK_SIGNING_FROM + 1], ids=["none", "few", "forked"])
def test_a_batch_is_signed_as_each_claim_alone(tmp_path, count):
    signer = key(tmp_path, "signer")
    claims = [f"claim {i}".encode() for i in range(count)]
    signed = signer.sign_many(claims)
    assert len(signed) == count
    assert all(signed[i] == signer.sign(claims[i]) for i in range(0, count, max(1, count // 50)))
    assert all(verify(signer.public_key, c, s) for c, s in zip(claims[-3:], signed[-3:]))


def test_claims_signed_while_the_caller_works_are_signed_as_each_alone(tmp_path):
    signer = key(tmp_path, "signer")
    items = [{"n": i} for i in range(identity_module.FORK_SIGNING_FROM + 1)]
    with signer.signing(items, claim=lambda item: f"claim {item['n']}".encode()) as signing:
        meanwhile = sum(range(100_000))  # the caller's own work, while children sign
        parts = dict(signing.ready())
    signatures = [s for start in sorted(parts) for s in parts[start]]
    assert meanwhile and len(signatures) == len(items)
    assert all(signatures[i] == signer.sign(f"claim {i}".encode()) for i in [*range(0, len(items), 97), len(items) - 1])


def test_a_key_file_reads_as_cryptography_reads_it(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    written = key(tmp_path, "mine")
    pem = (tmp_path / "mine.pem").read_bytes()
    library = serialization.load_pem_private_key(pem, password=None)
    loaded = Identity.load(tmp_path / "mine.pem")
    assert loaded.public_key == written.public_key
    assert loaded.sign(b"claim") == written.sign(b"claim") == Identity(library.private_bytes_raw()).sign(b"claim")
    # libsodium signs as OpenSSL does (Ed25519 is deterministic), and each verifies the other's
    assert loaded.sign(b"claim") == base64.b64encode(library.sign(b"claim")).decode()
    library.public_key().verify(base64.b64decode(loaded.sign(b"other claim")), b"other claim")
    crlf = tmp_path / "crlf.pem"  # the same key, other line ends: read alike
    crlf.write_bytes(pem.replace(b"\n", b"\r\n"))
    crlf.chmod(0o600)
    assert Identity.load(crlf).public_key == written.public_key
    others = {"ec.pem": ec.generate_private_key(ec.SECP256R1()).private_bytes(
                  serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
              "cut.pem": pem[:60] + pem[-26:], "garbage.pem": b"-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----\n"}
    for name, content in others.items():
        path = tmp_path / name
        path.write_bytes(content)
        path.chmod(0o600)
        with pytest.raises(KeyFileError):
            Identity.load(path)


def test_an_encrypted_key_file_is_refused_in_one_line(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    path = tmp_path / "locked.pem"
    path.write_bytes(Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret")))
    path.chmod(0o600)
    with pytest.raises(KeyFileError, match=r"it is encrypted"):
        Identity.load(path)


def test_a_case_part_is_checked_against_the_keys_of_now_and_one_proven_is_not_verified_again(tmp_path, monkeypatch):
    """check_cases decides every shared part by the signers' keys of now, never by a row held
    here: an agent holding the case and one that does not must decide a recount alike, or they
    would never agree (the simulator found two that did not). A part this process proved
    before, under a key the signer still has, is not verified again; a bent one is refused."""
    from collective.model import Case
    from collective.quarantine import signing

    earth, mars = key(tmp_path, "earth"), key(tmp_path, "mars")
    opened = signing.sign_cases([Case(id="c1", memory_id_a="a", memory_id_b="b", agent_a="earth-1",
                                      agent_b="mars-1", similarity=0.9, phase_diff=3.1, created_at=AT)],
                                earth, "earth-1")[0]
    recounted = signing.sign_cases([opened.replace(dispute_count=2)], mars, "mars-1")[0]
    keys = {"earth-1": [earth.public_key], "mars-1": [mars.public_key]}
    # earth-1's key is not known to this check: its opening is not vouched for, held or not
    only_mars = lambda agent: keys["mars-1"] if agent == "mars-1" else []  # noqa: E731
    assert signing.check_cases([recounted], only_mars, threshold=3).refused == {"forged_case": ["c1"]}
    assert signing.check_cases([recounted], keys.get, threshold=3).kept == [recounted]
    bent_opening = recounted.replace(similarity=0.5)
    raised_count = recounted.replace(dispute_count=7)
    for row, reason in ((bent_opening, "forged_case"), (raised_count, "tampered_count")):
        checked = signing.check_cases([row], keys.get, threshold=3)
        assert checked.refused == {reason: ["c1"]} and checked.kept == []
    proven = signing.Proven()
    assert signing.check_cases([recounted], keys.get, threshold=3, proven=proven).refused == {}
    monkeypatch.setattr(signing, "verify_many", lambda checks: [False] * len(checks))  # nothing verifies now
    assert signing.check_cases([recounted], keys.get, threshold=3, proven=proven).kept == [recounted]
    assert signing.check_cases([raised_count], keys.get, threshold=3, proven=proven).refused == {"tampered_count": ["c1"]}
    # proven under earth-1's key: once that key is no longer earth-1's, the opening is refused
    assert signing.check_cases([recounted], only_mars, threshold=3, proven=proven).refused == {"forged_case": ["c1"]}
