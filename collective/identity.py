"""Agent identity: an Ed25519 key pair; memories are signed with it."""

from __future__ import annotations

import base64
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .runtime import parallel
from .errors import CollectiveError


class KeyFileError(CollectiveError):
    """The key file is missing, unreadable or not an Ed25519 key."""


class Identity:
    """The private half, kept in a 0600 file in the agent's folder."""

    def __init__(self, private_key: Ed25519PrivateKey):
        self._key = private_key

    @classmethod
    def generate(cls, path: Path) -> "Identity":
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        return cls(key)

    @classmethod
    def load(cls, path: Path) -> "Identity":
        try:
            key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except (OSError, ValueError) as e:
            raise KeyFileError(f"cannot read the agent key {path}: {e}") from e
        if not isinstance(key, Ed25519PrivateKey):
            raise KeyFileError(f"{path} is not an Ed25519 key")
        return cls(key)

    @property
    def public_key(self) -> str:
        raw = self._key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return base64.b64encode(raw).decode("ascii")

    def sign(self, data: bytes) -> str:
        return base64.b64encode(self._key.sign(data)).decode("ascii")


def verify(public_key: str, data: bytes, signature: str) -> bool:
    try:
        _public_key(public_key).verify(base64.b64decode(signature), data)
        return True
    except (InvalidSignature, ValueError, TypeError):
        return False


def verify_many(checks: Sequence[tuple[str, bytes, str]]) -> list[bool]:
    """verify() for each (public key, data, signature), on every core: OpenSSL
    releases the GIL, and a 10k-memory pull is otherwise ~2 s of verifying."""
    parts = parallel.split(checks, parallel.cores() if len(checks) >= 256 else 1)
    if len(parts) <= 1:
        return [verify(*c) for c in checks]
    with ThreadPoolExecutor(len(parts)) as pool:
        return [ok for part in pool.map(lambda part: [verify(*c) for c in part], parts) for ok in part]


@lru_cache(maxsize=256)
def _public_key(public_key: str) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key))


def fingerprint(public_key: str) -> str:
    """Short, stable name of a public key (first 16 hex of its SHA-256)."""
    return hashlib.sha256(base64.b64decode(public_key)).hexdigest()[:16]
