"""Where agents live and how they are tuned: the home folder and cmem.toml.

Precedence, highest first: command-line option, environment (CMEM_HOME,
CMEM_AGENT, CMEM_REMOTE, CMEM_NATS_URL), cmem.toml in the home, defaults.
New agents' engine comes from the environment only (CMEM_BACKEND,
CMEM_DOLT_SERVER), read here and passed down to the store.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from .core import trust, wave
from .errors import BadInput, NotFound
from .model import validate_agent_id

CONFIG_FILE = "cmem.toml"
# The least relevance (core.scoring) a recalled memory has unless a call asks otherwise: low,
# so that only a query nothing stored is about recalls nothing. On the development questions
# of scripts/bench_recall_quality.py every answer found in the top 10 at 0 is still found at
# 0.15; questions whose answer is not stored but whose topic is score as high as answered
# ones (0.3 to 0.7), so no floor tells them apart without hiding answers (README, Recall).
MIN_SCORE = 0.15
OUTBOX_LIMIT = 10_000


@dataclass(frozen=True)
class Settings:
    similarity_threshold: float = wave.SIMILARITY_THRESHOLD
    amplitude_cap: float = wave.AMPLITUDE_CAP
    dispute_penalty: float = wave.DISPUTE_PENALTY
    escalation_threshold: int = 3
    fade_threshold: float = 0.05
    min_score: float = MIN_SCORE  # [recall] min_score: least relevance (0 to 1) a recalled memory has
    gc_every: int = 500  # run dolt_gc after this many commits by this process family
    half_lives: Mapping[str, float] = field(default_factory=lambda: dict(trust.DEFAULT_HALF_LIVES_DAYS))
    event_summary: bool = False  # [events] summary = true: memory events carry the first sentence too
    event_summary_off: tuple[str, ...] = ()  # [events] summary_off = ["mars-1"]: but not those agents
    events_enabled: bool = True  # [events] enabled = false: changes write no events at all
    outbox_limit: int = OUTBOX_LIMIT  # [events] outbox_limit: unsent events kept (NATS away); the oldest go

    def summary_for(self, agent_id: str) -> bool:
        """Whether this agent's memory events carry the summary."""
        return self.event_summary and agent_id not in self.event_summary_off

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> "Settings":
        values: dict[str, Any] = {}
        kinds = {f.name: type(f.default) for f in fields(cls) if f.name not in _NOT_PLAIN}
        for section in ("merge", "recall", "storage"):
            for key, value in config_table(raw, section).items():
                if key not in kinds:
                    raise BadInput("cmem.toml", f"unknown setting {key!r}")
                values[key] = checked_setting(f"[{section}] {key}", value, kinds[key])
        for key, value in config_table(raw, "events").items():
            if key not in _EVENT_KEYS:
                raise BadInput("cmem.toml", f"[events] knows {', '.join(_EVENT_KEYS)}, got {key!r}")
            name, kind = _EVENT_KEYS[key]
            values[name] = checked_setting(f"[events] {key}", value, kind)
        if values.get("outbox_limit", OUTBOX_LIMIT) < 1:
            raise BadInput("cmem.toml", f"[events] outbox_limit must be at least 1, got {values['outbox_limit']!r}")
        half_lives = config_table(config_table(raw, "trust"), "half_lives", "[trust] half_lives")
        for category, days in half_lives.items():
            if checked_setting(f"[trust] half_lives.{category}", days, float) <= 0:
                raise BadInput("cmem.toml", f"[trust] half_lives.{category} must be more than 0 days, got {days!r}")
        if half_lives:
            values["half_lives"] = {**trust.DEFAULT_HALF_LIVES_DAYS, **{k: float(v) for k, v in half_lives.items()}}
        if not 0.0 <= values.get("min_score", MIN_SCORE) <= 1.0:
            raise BadInput("cmem.toml", f"[recall] min_score must be from 0 to 1, got {values['min_score']!r}")
        return cls(**values)


_EVENT_KEYS = {"summary": ("event_summary", bool), "summary_off": ("event_summary_off", (str,)),
               "enabled": ("events_enabled", bool), "outbox_limit": ("outbox_limit", int)}
_NOT_PLAIN = ("half_lives", *(name for name, _ in _EVENT_KEYS.values()))  # set from [trust] and [events]
_KIND_NAMES = {float: "a finite number", int: "a whole number", bool: "true or false", str: "text"}


def config_table(raw: Mapping[str, Any], key: str, where: str | None = None) -> Mapping[str, Any]:
    """A section of cmem.toml ({} when absent); BadInput when it is not a table."""
    table = raw.get(key, {})
    if not isinstance(table, dict):
        raise BadInput("cmem.toml", f"{where or f'[{key}]'} must be a table, got {table!r}")
    return table


def checked_setting(where: str, value: Any, kind: type | tuple) -> Any:
    """A cmem.toml value of the kind its default has (a float: finite; `(kind,)`: a list of
    them), or BadInput naming the file and the setting."""
    if isinstance(kind, tuple):
        if not isinstance(value, list):
            raise BadInput("cmem.toml", f"{where} must be a list, got {value!r}")
        return tuple(checked_setting(where, item, kind[0]) for item in value)
    if kind is float:
        fits = isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value)
    else:
        fits = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not fits:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise BadInput("cmem.toml", f"{where} must be {_KIND_NAMES.get(kind, kind.__name__)}, got {shown}")
    return float(value) if kind is float else value


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer past a float's range (TOML integers have no bound here)
        return False


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
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as e:  # a folder of that name, no permission
            raise BadInput("cmem.toml", f"cannot read {path}: {e.strerror or e}") from e
        try:
            return tomllib.loads(data.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise BadInput("cmem.toml", f"{path} is not valid UTF-8 (byte 0x{data[e.start]:02x} at position "
                                        f"{e.start})") from e
        except ValueError as e:  # TOMLDecodeError, or an integer of more digits than Python converts
            raise BadInput("cmem.toml", str(e).splitlines()[0]) from e

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
        configured = self.config.get(key)
        if configured is not None:
            checked_setting(key, configured, str)
        return os.environ.get(env) or configured or default

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
