"""Faults injected into a history: a `cmem` command in a child process (killed with -9 after
a random delay, or left to run beside another command on the same agent), and a commons
that is away for a while."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from collective.runtime import doltlite_boot

from . import invariants as inv

ROOT = Path(__file__).resolve().parents[2]


def child_env(home: Path) -> dict:
    """The environment of a `cmem` child: the history's home, and doltlite loaded again there
    (FIELD-NOTES: a child that inherits the bootstrap flag gets plain SQLite)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CMEM_")}
    env.pop(doltlite_boot.BOOTSTRAP_MARKER, None)
    env["CMEM_HOME"] = str(home)
    return env


def start(home: Path, args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "collective.cli", *args], cwd=ROOT, env=child_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(command: str, child: subprocess.Popen, *, kill_after: float | None = None) -> list[inv.Violation]:
    """Wait for a child (or kill it -9 after `kill_after` seconds); a traceback or an exit
    status other than 0 to 3 is a no-crash violation."""
    if kill_after is not None:
        try:
            child.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    try:
        _, err = child.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        child.kill()
        _, err = child.communicate()
        return [inv.Violation(inv.NO_CRASH, f"cmem {command} still running after 300 s", f"{inv.NO_CRASH}:hang")]
    if child.returncode == -signal.SIGKILL:
        return []
    if "Traceback" in err or child.returncode not in (0, 1, 2, 3):
        last = [line for line in err.strip().splitlines() if line.strip()][-1:] or [""]
        return [inv.Violation(inv.NO_CRASH, f"cmem {command}: exit {child.returncode}: {last[0][:200]}",
                              f"{inv.NO_CRASH}:cmem {command}:{inv._stable(last[0])}")]
    if len([line for line in err.strip().splitlines() if line.strip()]) > 1 and child.returncode == 2:
        return [inv.Violation(inv.NO_CRASH, f"cmem {command}: bad input said in more than one line: {err[:200]!r}",
                              f"{inv.NO_CRASH}:cmem {command}:multi-line")]
    return []


def intact(name: str, agent) -> list[inv.Violation]:
    """After a kill: the agent opened (the caller did), nothing half-written in its versioned
    tables, and recall answers."""
    dirty = [r["table_name"] for r in agent.repo.query("SELECT * FROM dolt_status")
             if not str(r["table_name"]).startswith("local_")]
    found = []
    if dirty:
        found.append(inv.Violation(inv.ATOMICITY, f"{name}: uncommitted changes after a kill: {dirty}",
                                   f"{inv.ATOMICITY}:uncommitted"))
    agent.recall("coolant pump", k=3)
    return found


class Commons:
    """The file commons, in a folder of its own so that moving the folder away makes it
    unreachable (a push cannot quietly start a new commons where the old one was)."""

    def __init__(self, root: Path):
        self.folder, self.away_folder = root / "commons", root / "commons-away"
        self.folder.mkdir()
        self.url = f"file://{self.folder / 'commons.db'}"

    @property
    def away(self) -> bool:
        return self.away_folder.exists()

    def leave(self) -> None:
        self.folder.rename(self.away_folder)

    def come_back(self) -> None:
        self.away_folder.rename(self.folder)

    def back_up_or_restore(self) -> str:
        """Keep a copy of the commons, or put the copy kept back: every branch on the commons
        moves back to where it was, as after a restore from an old backup."""
        db, kept = self.folder / "commons.db", self.folder.parent / "commons-backup.db"
        if kept.exists():
            shutil.copyfile(kept, db)
            kept.unlink()
            return "commons_restored"
        if db.exists():
            shutil.copyfile(db, kept)
        return "commons_backed_up"
