"""Creating and opening an agent: its database, branches, key and own row.

`create` makes everything or nothing: the database appears under its real
name only when complete, and a failure removes what was made. `open` finds
the database, checks out the agent's branch and applies pending migrations.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from .config import Home, private_dir
from .embedders import DEFAULT_DIM, DEFAULT_MODEL_VERSION, Embedder
from .errors import BadInput, NotFound
from .identity import Identity
from .model import iso, utcnow, validate_agent_id
from .model.refs import working_branch
from .store import Location, Repository, credentials
from .store.tables import AgentTable

KEY_FILE = "ed25519.pem"


@dataclass
class Opened:
    """An agent's parts, open: what the services are built from."""

    home: Home
    agent_id: str
    location: Location
    repo: Repository
    identity: Identity
    branch: str


def create(agent_id: str, home: Home, *, embedder: Embedder | None = None, display_name: str | None = None,
           backend: str | None = None, dolt_url: str | None = None) -> None:
    """Create the agent's database (branches main and <id>/working), key and own row."""
    agent_id = validate_agent_id(agent_id)
    folder = home.agent_dir(agent_id)
    location = Location.new(folder, home.root, agent_id, backend=backend or home.backend, dolt_url=dolt_url,
                            dolt_server=home.dolt_server)
    first = not home.agents()
    made = _missing_folders(folder)
    _make_folder(folder, made, home)
    key_path = folder / KEY_FILE
    key_path.unlink(missing_ok=True)  # an interrupted init left it; nothing refers to it
    repo = None
    try:
        repo = location.create()
        identity = Identity.generate(key_path)
        now = iso(utcnow())
        repo.migrate(author=agent_id, now=now)
        with repo.transaction():
            AgentTable(repo).insert({
                "agent_id": agent_id, "display_name": display_name or agent_id,
                "public_key": identity.public_key, "trust_score": 1.0, "branch_name": working_branch(agent_id),
                "model_version": embedder.model_version if embedder else DEFAULT_MODEL_VERSION,
                "last_synced_commit": None, "last_sync": None,
                "capabilities": json.dumps({"dim": embedder.dim if embedder else DEFAULT_DIM}), "created_at": now})
            repo.commit(f"init agent {agent_id}", author=agent_id)
        repo.create_branch(working_branch(agent_id))
        repo.close()
        repo = None
        if location.keeps_credentials:
            credentials.ensure(folder)  # what it pushes to an authenticated commons with
        location.finish()
    except BaseException:
        if repo is not None:
            repo.close()
        location.discard()
        key_path.unlink(missing_ok=True)
        _remove_made(made)
        raise
    if first:
        home.remember_default_agent(agent_id)


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and those above it that do not exist yet, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def _make_folder(folder: Path, made: list[Path], home: Home) -> None:
    """The agent's folder, made 0700 before any other work; BadInput naming the home, with
    nothing left behind, when it cannot be (a file in the way, a folder not writable)."""
    existing = made[-1].parent if made else folder  # the nearest of them that is there
    problem = None if existing.is_dir() else f"{existing} is not a folder"
    if problem is None:
        try:
            private_dir(folder)
        except OSError as e:
            _remove_made(made)
            problem = f"cannot make {made[-1] if made else folder}: {e.strerror or e}"
    if problem:
        raise BadInput("home", f"{home.root} cannot hold agents: {problem}")


def _remove_made(made: list[Path]) -> None:
    """A failed init leaves nothing: the agent's folder, if it made it, with what it holds
    (its credential), then the folders above it that it made and that are empty."""
    if made:
        shutil.rmtree(made[0], ignore_errors=True)
    for folder in made[1:]:
        try:
            folder.rmdir()
        except OSError:  # something else put a file there meanwhile
            return


def exists(agent_id: str, home: Home, *, backend: str | None = None, dolt_url: str | None = None) -> bool:
    """Whether the agent was initialised in `home`. When it was, a `backend` or `dolt_url` naming
    another engine or database than its own is BadInput: `init --exist-ok` must not report as
    made what it did not make."""
    folder = home.agent_dir(validate_agent_id(agent_id))
    location = Location.find(folder, home.root)
    if location is not None and (backend or dolt_url):
        asked = Location.new(folder, home.root, agent_id, backend=backend or home.backend, dolt_url=dolt_url,
                             dolt_server=home.dolt_server)  # checks them as a new agent's would be
        if asked.engine != location.engine:
            raise BadInput("backend", f"{agent_id} exists as a {location.engine} agent; it cannot become "
                                      f"a {asked.engine} one")
        if dolt_url and _server_database(asked) != _server_database(location):
            raise BadInput("dolt-url", f"{agent_id} exists in another database: {location.describe()['server']}")
    return location is not None


def _server_database(location: Location) -> tuple | None:
    """Which database on which server a Dolt agent's location names (None: one managed in the home)."""
    from .store.doltserver import ServerAddress
    url = getattr(location, "url", None)
    if url is None:
        return None
    address = ServerAddress.parse(url)
    return (address.host, address.port, address.database)


def agent_public_key(home: Home, agent_id: str) -> str | None:
    """The public key of the agent of that id in this home, or None when there is none."""
    path = home.agent_dir(validate_agent_id(agent_id)) / KEY_FILE
    return Identity.load(path).public_key if path.exists() else None


def open_parts(agent_id: str | None, home: Home, *, branch: str | None = None) -> Opened:
    """Open an agent's database on its branch (migrated) and load its key."""
    agent_id = home.resolve_agent(agent_id)
    folder = home.agent_dir(agent_id)
    location = Location.find(folder, home.root)
    if location is None:
        raise NotFound("agent", f"{agent_id} was never initialised in {home.root}; run `cmem init --agent {agent_id}`")
    repo = location.open()
    try:
        identity = Identity.load(folder / KEY_FILE)
        branch = branch or working_branch(agent_id)
        if branch not in repo.branches():
            raise NotFound("branch", f"no branch {branch!r}")
        repo.checkout(branch)
        repo.migrate(author=agent_id, now=iso(utcnow()))
    except BaseException:
        repo.close()
        raise
    return Opened(home, agent_id, location, repo, identity, branch)
