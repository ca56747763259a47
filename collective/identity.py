"""Ed25519 identities: an agent's key (memories, cases, endorsements, rotations are
signed with it) and a reviewer's (verdicts). Private keys live in 0600 files (PKCS#8
PEM, as OpenSSL writes them); a key file that group or others can read is refused.

Signing and verifying are libsodium's (PyNaCl): twice as fast as OpenSSL's Ed25519 here
(verify 47 against 98 µs, sign 17 against 29 µs), and a pull verifies every memory it
takes. Ed25519 signatures are deterministic, so both libraries make the same bytes.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

from nacl import bindings as sodium
from nacl.exceptions import CryptoError

from .runtime import parallel
from .errors import CollectiveError
from .model.promotion import Endorsement

T = TypeVar("T")


# Fewer claims than this are signed here alone: a fork and its results' way back cost
# what some hundreds of signatures do.
FORK_SIGNING_FROM = 2000
# Claims a signer takes at a time: where two meet, one may wait for the other's last.
SIGNING_CHUNK = 64
SIGNATURE_CHARS = 88  # an Ed25519 signature's 64 bytes in base64
SIGNATURE_BYTES = 64


class KeyFileError(CollectiveError):
    """The key file is missing, unreadable or not an Ed25519 key."""


class Identity:
    """The private half, kept in a 0600 file in the agent's folder."""

    def __init__(self, seed: bytes):
        """`seed`: the 32 bytes an Ed25519 private key is made from (RFC 8032)."""
        self._public, self._secret = sodium.crypto_sign_seed_keypair(seed)

    @classmethod
    def generate(cls, path: Path) -> "Identity":
        seed = os.urandom(32)
        body = base64.b64encode(_PKCS8_ED25519 + seed)  # 64 characters: one line, as OpenSSL writes it
        pem = b"-----BEGIN PRIVATE KEY-----\n" + body + b"\n-----END PRIVATE KEY-----\n"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o600)  # whatever the umask
            f.write(pem)
            f.flush()
            os.fsync(f.fileno())  # on disk before a commit names it (a rotation)
        return cls(seed)

    @classmethod
    def load(cls, path: Path) -> "Identity":
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & 0o077:
                raise KeyFileError(f"key file {path} can be read by group or others (mode {mode:04o}): "
                                   f"run chmod 600 {path}")
            seed = _private_seed(path.read_bytes())
        except (OSError, ValueError) as e:
            raise KeyFileError(f"cannot read the key {path}: {e}") from e
        except TypeError as e:  # cryptography's answer to an encrypted key read without a password
            raise KeyFileError(f"cannot read the key {path}: it is encrypted (keys are kept unencrypted, "
                               f"mode 600)") from e
        if seed is None:
            raise KeyFileError(f"{path} is not an Ed25519 key")
        return cls(seed)

    @property
    def public_key(self) -> str:
        return base64.b64encode(self._public).decode("ascii")

    def sign(self, data: bytes) -> str:
        return base64.b64encode(sodium.crypto_sign(data, self._secret)[:SIGNATURE_BYTES]).decode("ascii")

    def sign_many(self, claims: Sequence[bytes]) -> list[str]:
        """sign() of each; a large batch on every core."""
        with self.signing(claims) as signing:
            return signing.all()

    @contextlib.contextmanager
    def signing(self, items: Sequence[T], claim: Callable[[T], bytes] | None = None) -> Iterator["Signing"]:
        """sign() of each item's claim, begun now. A signature costs 17 µs here, a quarter of a
        batch store's time; libsodium lets go of the GIL meanwhile, but a thread signing beside this
        one's Python work waits for the GIL after each signature and barely overlaps it. So a
        large batch is signed by forked children, which hold this key already (nothing is sent
        them), while the block does other work; this process signs what they have not when the
        block asks for the signatures. `claim`: an item's claim, where items are not claims."""
        children = parallel.workers() - 1 if len(items) >= FORK_SIGNING_FROM else 0
        work = self._signed if claim is None else lambda part: self._signed([claim(item) for item in part])
        with parallel.Shared(work, items, width=SIGNATURE_CHARS, children=children, chunk=SIGNING_CHUNK) as shared:
            yield Signing(shared)

    def _signed(self, claims: Sequence[bytes]) -> list[bytes]:
        sign, secret, encode = sodium.crypto_sign, self._secret, base64.b64encode
        return [encode(sign(data, secret)[:SIGNATURE_BYTES]) for data in claims]


class Signing:
    """The signatures of a batch, being made (Identity.signing)."""

    def __init__(self, shared: parallel.Shared):
        self._shared = shared

    def ready(self) -> Iterator[tuple[int, list[str]]]:
        """(first item's index, signatures) of each part of the batch as soon as it is signed."""
        for start, part in self._shared.ready():
            yield start, [signature.decode("ascii") for signature in part]

    def all(self) -> list[str]:
        return [signature.decode("ascii") for signature in self._shared.results()]


# An unencrypted PKCS#8 Ed25519 key (RFC 8410), the form generate() writes: these 16 bytes,
# then the 32-byte seed.
_PKCS8_ED25519 = bytes.fromhex("302e020100300506032b657004220420")


def _private_seed(pem: bytes) -> bytes | None:
    """The Ed25519 seed of a PEM file's private key (None: another kind of key). The form
    generate() writes is read here, its DER being a fixed prefix and the seed: every command
    opens its agent's key, and cryptography's serialization package costs more to import than
    the rest of a store. Any other file goes to that package's reader."""
    lines = pem.strip().splitlines()
    if len(lines) >= 3 and lines[0] == b"-----BEGIN PRIVATE KEY-----" and lines[-1] == b"-----END PRIVATE KEY-----":
        try:
            der = base64.b64decode(b"".join(line.strip() for line in lines[1:-1]), validate=True)
        except ValueError:
            der = b""
        if len(der) == len(_PKCS8_ED25519) + 32 and der.startswith(_PKCS8_ED25519):
            return der[len(_PKCS8_ED25519):]
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = serialization.load_pem_private_key(pem, password=None)
    return key.private_bytes_raw() if isinstance(key, Ed25519PrivateKey) else None


def canonical(doc: dict) -> bytes:
    """The bytes a signature over a document covers: sorted keys, no spaces."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")


def valid_public_key(text: str) -> bool:
    try:
        _public_key(text)
        return True
    except (ValueError, TypeError):
        return False


def verify(public_key: str, data: bytes, signature: str) -> bool:
    try:
        raw = base64.b64decode(signature)
        # libsodium reads the first 64 bytes of signature and data together as the signature:
        # a shorter one would borrow the data's first bytes, and the rest would be what it covers
        if len(raw) != SIGNATURE_BYTES:
            return False
        sodium.crypto_sign_open(raw + data, _public_key(public_key))
        return True
    except (CryptoError, ValueError, TypeError):
        return False


def verify_many(checks: Sequence[tuple[str, bytes, str]]) -> list[bool]:
    """verify() for each (public key, data, signature), on every core: libsodium
    releases the GIL, and a 10k-memory pull is otherwise ~2 s of verifying."""
    parts = parallel.split(checks, parallel.cores() if len(checks) >= 256 else 1)
    if len(parts) <= 1:
        return [verify(*c) for c in checks]
    from concurrent.futures import ThreadPoolExecutor  # a store or a recall never verifies: not loaded for them
    with ThreadPoolExecutor(len(parts)) as pool:
        return [ok for part in pool.map(lambda part: [verify(*c) for c in part], parts) for ok in part]


@lru_cache(maxsize=256)
def _public_key(public_key: str) -> bytes:
    """A base64 public key's 32 bytes (ValueError: not 32 bytes of base64)."""
    raw = base64.b64decode(public_key)
    if len(raw) != sodium.crypto_sign_PUBLICKEYBYTES:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return raw


def fingerprint(public_key: str) -> str:
    """Short, stable name of a public key (first 16 hex of its SHA-256)."""
    return hashlib.sha256(base64.b64decode(public_key)).hexdigest()[:16]


# --- signed statements about keys and memories ------------------------------------

def rotation_claim(agent_id: str, old_key: str, new_key: str, at: str) -> bytes:
    return canonical({"kind": "key.rotation", "agent_id": agent_id, "old_key": old_key, "new_key": new_key, "at": at})


def rotation_reaches(held_key: str, target_key: str, rotations: Sequence[dict]) -> bool:
    """Whether a chain of rotations, each signed by the key before it, leads from the
    key we hold to the one the agent now shows."""
    by_old = {r["old_key"]: r for r in rotations}
    key, seen = held_key, set()
    while key != target_key:
        step = by_old.get(key)
        if step is None or key in seen:
            return False
        claim = rotation_claim(step["agent_id"], step["old_key"], step["new_key"], step["rotated_at"])
        if not verify(key, claim, step["signature"]):
            return False
        seen.add(key)
        key = step["new_key"]
    return True


def endorsement_claim(memory_id: str, agent_id: str, at: str) -> bytes:
    """What an agent signs when it endorses a memory for promotion to main."""
    return canonical({"kind": "memory.endorsement", "memory_id": memory_id, "agent_id": agent_id, "at": at})


def endorsement(identity: Identity, memory_id: str, agent_id: str, at: str) -> Endorsement:
    """An endorsement, signed by the endorsing agent."""
    return Endorsement(memory_id=memory_id, agent_id=agent_id, created_at=at,
                       signature=identity.sign(endorsement_claim(memory_id, agent_id, at)))


def endorsement_valid(row: Endorsement, public_key: str) -> bool:
    return verify(public_key, endorsement_claim(row.memory_id, row.agent_id, row.created_at), row.signature)
