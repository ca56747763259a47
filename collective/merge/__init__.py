"""The collective merge: candidates, the pure plan, and applying it."""

from .plan import *  # noqa: F401,F403
