"""One exception family. The CLI maps BadInput to exit 2, the rest to exit 1."""


class CollectiveError(Exception):
    """Base of every error this package raises on purpose."""


class BadInput(CollectiveError, ValueError):
    """The caller gave something invalid; nothing was written."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class NotFound(BadInput, LookupError):
    """A named thing (agent, memory, ref, case, remote) does not exist."""


class AgentExists(BadInput):
    """init on an agent that is already initialised, without exist_ok."""


class StorageError(CollectiveError):
    """The database engine failed at something it should have done."""


class SerializationFailure(StorageError):
    """Another transaction on the same branch committed first; the work may be retried."""


class NonFastForward(StorageError):
    """A push was refused because the remote moved ahead of us."""

    def __init__(self, branch: str, detail: str = ""):
        self.branch = branch
        super().__init__(f"push of {branch} is not a fast-forward{': ' + detail if detail else ''}")


class RemoteUnreachable(CollectiveError, ConnectionError):
    """The commons could not be reached (operational: exit 1)."""
