"""Signing an envelope with the agent's Ed25519 key, and checking one against the
key registry the receiving agent keeps (its `agents` table)."""

from __future__ import annotations

from typing import Mapping

from collective.identity import Identity, verify as verify_signature
from collective.model.events import canonical


def sign(envelope: Mapping, identity: Identity) -> dict:
    """The envelope with its signature over every other field."""
    return {**envelope, "signature": identity.sign(canonical(envelope))}


def verify(envelope: Mapping, public_key: str | None) -> bool:
    return bool(public_key) and verify_signature(public_key, canonical(envelope), envelope["signature"])
