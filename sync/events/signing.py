"""Signing an envelope with the agent's Ed25519 key, and checking one against the
key registry the receiving agent keeps (its `agents` table)."""

from __future__ import annotations

from typing import Mapping

from collective.identity import Identity, verify as verify_signature
from collective.model.events import canonical


def sign(envelope: Mapping, identity: Identity) -> dict:
    """The envelope with its signature over every other field."""
    return {**envelope, "signature": identity.sign(canonical(envelope))}


def signed_message(canonical_json: str, identity: Identity) -> bytes:
    """The message for an outbox row: its canonical JSON, signed, with the signature added
    as the last field (no parsing: the publisher's hot path)."""
    signature = identity.sign(canonical_json.encode("utf-8"))
    return (canonical_json[:-1] + ',"signature":"' + signature + '"}').encode("utf-8")


def verify(envelope: Mapping, public_key: str | None) -> bool:
    return bool(public_key) and verify_signature(public_key, canonical(envelope), envelope["signature"])
