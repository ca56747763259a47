"""One exception family. The CLI maps BadInput to exit 2, the rest to exit 1.

The storage errors carry data (the branch and both heads of a refused push,
the remote that could not be reached) and are made by the storage backends,
the only code that reads an engine's own messages.
"""

from __future__ import annotations

import re

SHOWN_CHARS = 80     # what an error line shows of a long value: enough to know it by
LONGEST_SHOWN = 200  # a value longer than this is cut to SHOWN_CHARS, its length said
LONGEST_LINE = 1000  # past this a line is cut too (a long unquoted value holding spaces)

# a quoted value (a str's repr, escapes and all), or a run of text without spaces
_VALUE = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[^\s'"]+""")


class CollectiveError(Exception):
    """Base of every error this package raises on purpose."""


def one_line(error: CollectiveError) -> str:
    """What a way in (the CLI, the MCP server) tells the caller: the first line of the
    message, its long values cut, or the error's type when it has none."""
    text = str(error)
    return shortened(text.splitlines()[0]) if text else type(error).__name__


def shortened(text: str) -> str:
    """`text` with each value longer than LONGEST_SHOWN characters cut to its first
    SHOWN_CHARS and its length: a 2 MB id would otherwise make a 2 MB error line."""
    if len(text) <= LONGEST_SHOWN:
        return text
    short = _VALUE.sub(_shorten_value, text)
    return short if len(short) <= LONGEST_LINE else f"{short[:LONGEST_LINE]}… ({len(text)} characters in all)"


def _shorten_value(match: re.Match) -> str:
    value = match.group()
    quote = value[0] if value[0] in "'\"" else ""
    length = len(value) - 2 * len(quote)
    if length <= LONGEST_SHOWN:
        return value
    return f"{value[:SHOWN_CHARS + len(quote)]}…{quote} ({length} characters)"


class BadInput(CollectiveError, ValueError):
    """The caller gave something invalid; nothing was written."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = shortened(problem)
        super().__init__(f"{field}: {self.problem}")


class NotFound(BadInput, LookupError):
    """A named thing (agent, memory, ref, case, remote) does not exist."""


class AgentExists(BadInput):
    """init on an agent that is already initialised, without exist_ok."""


class NotACommons(BadInput):
    """A remote that is no commons database, or a commons of the other engine
    (doltlite and Dolt agents cannot share one). `remote` is the remote's name,
    or its path or URL when it has no name yet."""

    def __init__(self, remote: str, problem: str):
        self.remote = remote
        super().__init__("remote", problem)


class StorageError(CollectiveError):
    """The database engine failed at something it should have done."""


class RowShapeMismatch(CollectiveError, TypeError):
    """A batch written to one table whose rows do not all have the same columns: a row
    that lost a column on its way, a bug in the caller rather than bad input (exit 1).
    Nothing was written. `columns` are those some rows of the batch have and others lack."""

    def __init__(self, table: str, columns: list[str]):
        self.table = table
        self.columns = columns
        super().__init__(f"rows written to {table} differ in their columns: {', '.join(columns)} "
                         "in some rows, not in others")


class SerializationFailure(StorageError):
    """Another transaction on the same branch committed first; the work may be retried."""


class NonFastForward(StorageError):
    """A push was refused: the remote's branch is not where the push needs it.

    `ours` is the local head that was to be pushed; `theirs` the remote's head
    ("" when the branch does not exist there, None when it could not be learned).
    """

    def __init__(self, branch: str, ours: str | None = None, theirs: str | None = None, *, detail: str = ""):
        self.branch = branch
        self.ours = ours
        self.theirs = theirs
        self.detail = detail
        heads = []
        if theirs is not None:
            heads.append(f"remote at {theirs[:12] or 'nothing'}")
        if ours is not None:
            heads.append(f"ours at {ours[:12]}")
        text = f"push of {branch} is not a fast-forward"
        if heads:
            text += f" ({', '.join(heads)})"
        super().__init__(text + (f": {detail}" if detail else ""))


class BranchContested(CollectiveError):
    """A branch could not be pushed: it kept moving on the commons in between, every attempt
    (others pushing a shared branch, or someone else writing the agent's own) (exit 1)."""

    def __init__(self, branch: str, remote: str, attempts: int):
        self.branch = branch
        self.remote = remote
        self.attempts = attempts
        super().__init__(f"could not push {branch} to {remote} after {attempts} attempts")


class HistoryRewritten(CollectiveError):
    """A peer's branch moved to a commit that does not descend from the head last taken
    from it (rolled back or rewritten): nothing of it is merged, its watermark stays
    (operational: exit 1). `taken` is that watermark, `offered` the branch's head now."""

    def __init__(self, peer: str, taken: str, offered: str):
        self.peer = peer
        self.taken = taken
        self.offered = offered
        super().__init__(f"{peer}'s branch moved to {offered[:12]}, which does not descend from "
                         f"{taken[:12]} taken last: refused")


class RemoteUnreachable(CollectiveError, ConnectionError):
    """The commons could not be reached (operational: exit 1)."""

    def __init__(self, remote: str, detail: str):
        self.remote = remote
        self.detail = detail
        super().__init__(f"remote {remote!r} is unreachable: {detail}")


class CommonsRefused(CollectiveError, PermissionError):
    """The commons refused this agent: no credential, or one it does not know (exit 1)."""

    def __init__(self, remote: str, detail: str):
        self.remote = remote
        self.detail = detail
        super().__init__(f"remote {remote!r} refused this agent: {detail}")


class NoCommonsYet(RemoteUnreachable):
    """The remote holds no commons yet; the first push makes one. `where` is its path or URL."""

    def __init__(self, remote: str, where: str):
        self.where = where
        super().__init__(remote, f"no commons at {where} yet")


class ServerUnreachable(CollectiveError, ConnectionError):
    """The Dolt sql-server holding the agent's database could not be reached, or went away."""


class NotShared(CollectiveError):
    """A change was committed locally but the commons did not get it: `cmem push`
    shares it. Its own exit status (3), so a retry knows the work is done here.
    `result` is what the command did."""

    exit_code = 3

    def __init__(self, what: str, cause: Exception, result: dict | None = None):
        self.cause = cause
        self.result = result or {}
        first = str(cause).splitlines()[0] if str(cause) else type(cause).__name__
        super().__init__(f"{what} recorded locally, not shared: run cmem push ({first})")
