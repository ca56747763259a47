"""A person's reviewer key: an Ed25519 pair kept in <home>/reviewers/<name>.pem (0600),
outside every agent's database. Verdicts are signed with it; each agent decides
whose public keys it honours (`cmem reviewers add`)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

from .config import Home
from .errors import AgentExists, BadInput, NotFound
from .identity import Identity, fingerprint

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def validate_name(name: str | None) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise BadInput("name", f"{name!r} is not a valid reviewer name (expected [A-Za-z0-9][A-Za-z0-9._-]{{0,63}})")
    return name


def key_path(home: Home, name: str) -> Path:
    return home.root / "reviewers" / f"{validate_name(name)}.pem"


def init(home: Home, name: str) -> dict:
    """Make a reviewer's key pair; refuse to replace one."""
    path = key_path(home, name)
    if path.exists():
        raise AgentExists("name", f"reviewer {name} already has a key at {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    identity = Identity.generate(path)
    return {"name": name, "public_key": identity.public_key, "fingerprint": fingerprint(identity.public_key),
            "key_file": str(path)}


def load(home: Home, name: str) -> Identity:
    path = key_path(home, name)
    if not path.exists():
        raise NotFound("by", f"no reviewer key for {name} in {path.parent}; run `cmem reviewer init --name {name}`")
    return Identity.load(path)


def public_key(home: Home, name: str) -> str | None:
    """The public key of the reviewer of that name in this home, or None."""
    path = key_path(home, name)
    return Identity.load(path).public_key if path.exists() else None


def signers(home: Home, names_: Sequence[str] = ()) -> list[Identity]:
    """The keys of these people (default: every reviewer key in this home)."""
    return [load(home, name) for name in (names_ or names(home))]


def names(home: Home) -> list[str]:
    """The reviewers whose keys are in this home."""
    folder = home.root / "reviewers"
    return sorted(p.stem for p in folder.glob("*.pem")) if folder.is_dir() else []


def default_name(home: Home) -> str | None:
    """The reviewer when --by names none: $USER, else `reviewer` in cmem.toml, when it has
    a key here; else the only key there is."""
    held = names(home)
    user = home.setting("reviewer")
    if user in held:
        return user
    return held[0] if len(held) == 1 else None
