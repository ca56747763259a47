"""The home folder and its cmem.toml, read once per Home and kept."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from ..errors import BadInput, NotFound
from ..model import validate_agent_id
from . import environment
from .loader import settings_from
from .sections import Settings, TopLevel

CONFIG_FILE = "cmem.toml"
T = TypeVar("T")


def tokenizer_override() -> str | None:
    """$CMEM_TOKENIZER: another tokenizer.json for the default embedder."""
    return environment.read("CMEM_TOKENIZER")


def dolt_binary_override() -> str | None:
    """$CMEM_DOLT: the dolt binary to run instead of the one the project installs."""
    return environment.read("CMEM_DOLT")


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
    chosen = home or environment.read("CMEM_HOME") or Path.home() / ".cmem"
    return Path(chosen).expanduser().resolve()


def read_config(path: Path) -> dict:
    """cmem.toml parsed ({} when there is none); BadInput when it cannot be read."""
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


@dataclass(frozen=True)
class Home:
    """The folder holding agents: <home>/cmem.toml and <home>/agents/<id>/.

    cmem.toml is read on first use and kept, with each settings class built from it,
    until the file changes."""

    root: Path
    _kept: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def at(cls, home: str | os.PathLike | None = None) -> "Home":
        return cls(home_path(home))

    @property
    def config(self) -> dict:
        """cmem.toml as parsed: read again only when the file changed (a long-running
        command sees an edit), and with it every settings class built from it."""
        path = self.root / CONFIG_FILE
        try:
            stat = path.stat()
            version = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except OSError:  # none there (or unreadable: read_config says which)
            version = None
        if self._kept.get("version", ()) != version:  # () is no file's version: never read yet
            self._kept.clear()
            self._kept["file"] = read_config(path)
            self._kept["version"] = version
        return self._kept["file"]

    def section(self, cls: type[T]) -> T:
        """A settings class (one declared with loader.setting) built from cmem.toml, once."""
        config = self.config  # first: a changed file forgets the classes built from the old one
        if cls not in self._kept:
            self._kept[cls] = settings_from(cls, config)
        return self._kept[cls]

    @property
    def settings(self) -> Settings:
        return self.section(Settings)

    def setting(self, key: str) -> str | None:
        """A top-level text setting: its environment variable, else cmem.toml, else its default."""
        variable = environment.OVERRIDING.get(key)
        given = (environment.read(variable) if variable else None) or getattr(self.section(TopLevel), key)
        return given or TopLevel.__dataclass_fields__[key].default  # an empty text is no choice

    @property
    def names_nats(self) -> bool:
        """Whether a person named a NATS server for this home ($CMEM_NATS_URL, `nats_url` or
        [nats] servers): only then does a command publish its events as soon as it committed."""
        return bool(self.setting("nats_url") or (self.config.get("nats") or {}).get("servers"))

    @property
    def collective(self) -> str:
        """The collective this agent's events go to (subjects cmem.<collective>.>): $CMEM_COLLECTIVE,
        `collective` in cmem.toml, or "default"."""
        return self.setting("collective")

    @property
    def backend(self) -> str | None:
        """The engine for new agents when the caller names none: $CMEM_BACKEND (doltlite or dolt)."""
        return environment.read("CMEM_BACKEND")

    @property
    def dolt_server(self) -> str | None:
        """A Dolt sql-server for new Dolt agents, shared by many homes: $CMEM_DOLT_SERVER
        (mysql://user:pass@host:port); None means a server managed in the home."""
        return environment.read("CMEM_DOLT_SERVER")

    def agent_dir(self, agent_id: str) -> Path:
        return self.root / "agents" / validate_agent_id(agent_id)

    def agents(self) -> list[str]:
        folder = self.root / "agents"
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir()
                      if (p / "memory.db").exists() or (p / "backend.json").exists())

    def resolve_agent(self, agent_id: str | None = None) -> str:
        """The agent a command acts as: option, CMEM_AGENT, cmem.toml, or the only one."""
        chosen = agent_id or self.setting("agent")
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
        self._kept.clear()  # in case the file's time and size came out the same

    def pin_roster(self, fingerprint: str) -> None:
        """Write `roster = FINGERPRINT` into cmem.toml: its agents follow only the roster whose
        first version has it. BadInput when it pins another one already."""
        pinned = self.config.get("roster")
        if pinned == fingerprint:
            return
        if pinned:
            raise BadInput("roster", f"{self.root / CONFIG_FILE} pins another roster already ({pinned})")
        path = self.root / CONFIG_FILE
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        path.write_text(f'roster = "{fingerprint}"\n' + text, encoding="utf-8")
        self._kept.clear()  # in case the file's time and size came out the same
