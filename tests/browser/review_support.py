"""What the review page's browser tests share besides fixtures: the story's texts, the CLI
in a child process, and `cmem review` served from one."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

CMEM = str(Path(sys.executable).with_name("cmem"))
PUMP = "The coolant pump in module C is safe to operate"
NOT_PUMP = "The coolant pump in module C is not safe to operate"
ROVER = "Rover 5 battery was replaced on Tuesday"
QUERY = "is the coolant pump in module C safe?"


def cmem(*args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """The CLI as a person runs it, in a child process."""
    return subprocess.run([CMEM, *args, "--home", str(home)], capture_output=True, text=True, timeout=timeout)


@dataclass
class World:
    home: Path
    dispute_memories: dict = field(default_factory=dict)  # "safe" / "not safe" -> memory id
    rover: str = ""


class Served:
    """`cmem review` in a child process; stopped with SIGINT."""

    def __init__(self, home: Path, *args: str):
        self.child = subprocess.Popen([CMEM, "review", "--home", str(home), "--agent", "earth-2", "--by", "ana",
                                       "--json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.child.stdout.readline()
        if not line:
            raise AssertionError(f"cmem review did not start: {self.child.communicate(timeout=30)[1]}")
        self.info = json.loads(line)
        self.url = self.info["url"].rstrip("/")

    def stop(self) -> tuple[int, str]:
        if self.child.poll() is None:
            self.child.send_signal(signal.SIGINT)
        _, err = self.child.communicate(timeout=30)
        return self.child.returncode, err


def clock() -> float:
    return time.perf_counter()
