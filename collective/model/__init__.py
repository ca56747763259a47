"""The data: memories, cases, peers, branch names and the enums they use. No I/O."""

from .memory import *  # noqa: F401,F403
from .memory import _field_names  # noqa: F401
from .vectors import *  # noqa: F401,F403
from .case import Case  # noqa: F401
from .ledger import TrustEvent  # noqa: F401
from .promotion import Endorsement, Promotion  # noqa: F401
from .record import Record  # noqa: F401
