"""Make stdlib sqlite3 speak Dolt, in this process and in the processes it starts.

`import doltlite` preloads libdoltlite, which only works before anything
imports `sqlite3`; `collective/__init__` imports this module first for that.
The bootstrap marks the environment so it never runs twice, and child
processes (subprocess, joblib/loky workers, fork-then-exec) inherit the mark,
skip the preload and silently get plain SQLite. Clearing it makes every child
bootstrap itself.
"""

import os

import doltlite  # noqa: F401  (must precede sqlite3)

BOOTSTRAP_MARKER = "_DOLTLITE_BOOTSTRAPPED"
os.environ.pop(BOOTSTRAP_MARKER, None)
