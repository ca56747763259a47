"""The Agent's dream verbs (a part of the facade, kept apart for its size): a dream cycle
and its review, and the import of peers' dream artifacts that every pull ends with. The
dream package loads when one of them is used."""

from __future__ import annotations

import contextlib
import fcntl
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

if TYPE_CHECKING:
    from .reports import DreamReport
    from .dream.port import DreamPort
    from .runtime.progress import Progress


class DreamVerbs:
    """Mixed into Agent, whose parts the port carries (dream/port.py)."""

    def dream_port(self) -> DreamPort:
        """What a dream uses of this agent (dream/port.py)."""
        from .dream.port import DreamPort
        from .dream.settings import DreamSettings
        return DreamPort(
            agent_id=self.agent_id, branch=self.branch, repo=self.repo, tables=self.tables, settings=self.settings,
            dream=self.home.section(DreamSettings), dim=self.dim, model_version=self.embedder_version,
            index=self.index, comparator=self.comparator, trust_scores=self.trust_scores,
            sign=lambda data: self.identity.sign(data), flush_access=self.flush_access,
            refutations=self.refutations, remote=self._sharing_remote)

    def dream(self, *, full: bool = False, jobs: int = 1, review: bool = False, share: bool = True,
              progress: Progress | None = None, now: datetime | None = None,
              synthesiser: Callable[[Sequence[str]], str] | None = None) -> DreamReport:
        """One dream cycle (dream/cycle.py): consolidate on a dream branch, share it, merge it
        into working unless `review` (then `accept_dream`); its report. `synthesiser` writes a
        synthesis from its parents' summaries (default: dream.stages.hallucinate.from_summaries)."""
        from .dream import cycle
        port = self.dream_port()  # its settings checked first: a bad one leaves no lock file behind
        with _one_dream_at_a_time(self.folder, self.agent_id, cycle.DreamFailed):
            return cycle.dream(port, full=full, jobs=jobs, review=review, share=share,
                               progress=progress, now=now, synthesiser=synthesiser)

    def accept_dream(self, run: str) -> dict:
        """Merge a dream run made with review into working."""
        from .dream import cycle
        return cycle.accept(self.dream_port(), run)

    def import_dreams(self, remote: str | None = None) -> dict:
        """Import the dream artifacts of the peers on the remote (as last fetched), by trust."""
        from .dream import artifacts
        return artifacts.import_from_peers(self.dream_port(), remote)


@contextlib.contextmanager
def _one_dream_at_a_time(folder: Path, agent_id: str, failed: type[Exception]) -> Iterator[None]:
    """A second dream of the agent while one runs is refused: it would consolidate the same
    memories again and write their syntheses twice (and, started in the same second, it
    failed on the first one's branch name)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "dream-lock", "a+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise failed(f"another dream of {agent_id} is running; this one did nothing "
                         f"(try again when it ends)") from None
        yield  # closing the file releases the lock
