"""Exchange through a commons: remotes, push, pull and the shared quarantine branch."""

from .pull import *  # noqa: F401,F403
from .pull import _candidates, _judging  # noqa: F401
