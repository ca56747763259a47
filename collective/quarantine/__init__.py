"""Quarantine: disputed pairs, their cases and what a verdict does."""

from .cases import *  # noqa: F401,F403
