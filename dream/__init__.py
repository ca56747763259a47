"""Dream cycles: an agent consolidates what it knows, on its own branch, and shares the result.

`dream(port, ...)` runs one cycle (dream/cycle.py) with what it uses of its agent
(dream/port.py: `Agent.dream` makes it); the stages live in dream/stages/,
clusters are worked on in parallel (dream/partition.py), and dream/artifacts.py shares
a run's results with peers and imports theirs.
"""

from .cycle import DreamFailed, accept, dream

__all__ = ["DreamFailed", "accept", "dream"]
