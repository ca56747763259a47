"""Where agents live and how they are tuned: the home folder and cmem.toml.

Precedence, highest first: command-line option, environment (CMEM_HOME,
CMEM_AGENT, CMEM_REMOTE, CMEM_NATS_URL), cmem.toml in the home, defaults.
New agents' engine comes from the environment only (CMEM_BACKEND,
CMEM_DOLT_SERVER), read here and passed down to the store.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from .core import trust, wave
from .errors import BadInput, NotFound
from .model import validate_agent_id

CONFIG_FILE = "cmem.toml"
# Measured on the demo and the tests' texts (README, Recall): paraphrases of a question score
# 0.437 and more, memories about something else 0.356 and less (scripts/measure_floor.py).
RECALL_FLOOR = 0.4


@dataclass(frozen=True)
class Settings:
    similarity_threshold: float = wave.SIMILARITY_THRESHOLD
    amplitude_cap: float = wave.AMPLITUDE_CAP
    dispute_penalty: float = wave.DISPUTE_PENALTY
    escalation_threshold: int = 3
    fade_threshold: float = 0.05
    recall_floor: float = RECALL_FLOOR  # [recall] recall_floor: least cosine similarity a recalled memory has
    gc_every: int = 500  # run dolt_gc after this many commits by this process family
    half_lives: Mapping[str, float] = field(default_factory=lambda: dict(trust.DEFAULT_HALF_LIVES_DAYS))
    event_summary: bool = True  # [events] summary = false keeps summaries out of events (privacy)
    event_summary_off: tuple[str, ...] = ()  # [events] summary_off = ["mars-1"]: those agents only

    def summary_for(self, agent_id: str) -> bool:
        """Whether this agent's memory events carry the summary."""
        return self.event_summary and agent_id not in self.event_summary_off

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> "Settings":
        values: dict[str, Any] = {}
        sections = {**raw.get("merge", {}), **raw.get("recall", {}), **raw.get("storage", {})}
        names = {f.name for f in fields(cls)}
        for key, value in sections.items():
            if key not in names or key == "half_lives":
                raise BadInput("cmem.toml", f"unknown setting {key!r}")
            values[key] = value
        for key, value in raw.get("events", {}).items():
            if key == "summary" and isinstance(value, bool):
                values["event_summary"] = value
            elif key == "summary_off" and isinstance(value, list) and all(isinstance(v, str) for v in value):
                values["event_summary_off"] = tuple(value)
            else:
                raise BadInput("cmem.toml", f"[events] knows summary = true|false and summary_off = [agent ids], "
                                            f"got {key!r}")
        half_lives = raw.get("trust", {}).get("half_lives")
        if half_lives:
            values["half_lives"] = {**trust.DEFAULT_HALF_LIVES_DAYS, **half_lives}
        return cls(**values)


def tokenizer_override() -> str | None:
    """$CMEM_TOKENIZER: another tokenizer.json for the default embedder."""
    return os.environ.get("CMEM_TOKENIZER") or None


def dolt_binary_override() -> str | None:
    """$CMEM_DOLT: the dolt binary to run instead of the one the project installs."""
    return os.environ.get("CMEM_DOLT") or None


def private_dir(path: Path) -> Path:
    """`path`, made with every missing folder on the way 0700 (existing ones are left as they are)."""
    missing, folder = [], path
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    return path


def private_file(path: Path, text: str) -> None:
    """Write `text` to `path`, readable by its owner only, replacing it whole."""
    staging = path.with_name(f".{path.name}.tmp")
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        os.fchmod(f.fileno(), 0o600)  # a staging file left by a crash may have had another mode
        f.write(text)
    os.replace(staging, path)


def home_path(home: str | os.PathLike | None = None) -> Path:
    chosen = home or os.environ.get("CMEM_HOME") or Path.home() / ".cmem"
    return Path(chosen).expanduser().resolve()


@dataclass(frozen=True)
class Home:
    """The folder holding agents: <home>/cmem.toml and <home>/agents/<id>/."""

    root: Path

    @classmethod
    def at(cls, home: str | os.PathLike | None = None) -> "Home":
        return cls(home_path(home))

    @property
    def config(self) -> dict:
        path = self.root / CONFIG_FILE
        if not path.exists():
            return {}
        try:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise BadInput("cmem.toml", str(e)) from e

    @property
    def settings(self) -> Settings:
        return Settings.from_mapping(self.config)

    def agent_dir(self, agent_id: str) -> Path:
        return self.root / "agents" / validate_agent_id(agent_id)

    def agents(self) -> list[str]:
        folder = self.root / "agents"
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir()
                      if (p / "memory.db").exists() or (p / "backend.json").exists())

    def setting(self, env: str, key: str, default: str | None = None) -> str | None:
        return os.environ.get(env) or self.config.get(key) or default

    @property
    def collective(self) -> str:
        """The collective this agent's events go to (subjects cmem.<collective>.>): $CMEM_COLLECTIVE,
        `collective` in cmem.toml, or "default"."""
        return self.setting("CMEM_COLLECTIVE", "collective", "default")

    @property
    def backend(self) -> str | None:
        """The engine for new agents when the caller names none: $CMEM_BACKEND (doltlite or dolt)."""
        return os.environ.get("CMEM_BACKEND") or None

    @property
    def dolt_server(self) -> str | None:
        """A Dolt sql-server for new Dolt agents, shared by many homes: $CMEM_DOLT_SERVER
        (mysql://user:pass@host:port); None means a server managed in the home."""
        return os.environ.get("CMEM_DOLT_SERVER") or None

    def resolve_agent(self, agent_id: str | None = None) -> str:
        """The agent a command acts as: option, CMEM_AGENT, cmem.toml, or the only one."""
        chosen = agent_id or self.setting("CMEM_AGENT", "agent")
        if chosen:
            return validate_agent_id(chosen)
        known = self.agents()
        if len(known) == 1:
            return known[0]
        if not known:
            raise NotFound("agent", f"no agent in {self.root}; run `cmem init --agent ID`")
        raise BadInput("agent", f"several agents in {self.root} ({', '.join(known)}); name one with --agent")

    def remember_default_agent(self, agent_id: str) -> None:
        """Write `agent = ID` into cmem.toml when it names no agent yet."""
        path = self.root / CONFIG_FILE
        if "agent" in self.config:
            return
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        path.write_text(f'agent = "{agent_id}"\n' + text, encoding="utf-8")
