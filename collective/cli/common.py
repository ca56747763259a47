"""What every `cmem` command shares: options, error mapping, output, opening an agent, progress."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, TextIO

import click

from ..errors import BadInput, CollectiveError, NotShared

if TYPE_CHECKING:
    from ..agent import Agent
    from ..runtime.progress import Progress


class UsageFailure(click.ClickException):
    exit_code = 2


class NotSharedFailure(click.ClickException):
    """Done here, not on the commons: its own status, so a script knows not to redo it."""
    exit_code = NotShared.exit_code


@contextlib.contextmanager
def cli_errors() -> Iterator[None]:
    """BadInput -> exit 2, NotShared -> exit 3, any other CollectiveError -> exit 1, one line each."""
    try:
        yield
    except BadInput as e:
        raise UsageFailure(str(e)) from e
    except NotShared as e:
        raise NotSharedFailure(str(e)) from e
    except CollectiveError as e:
        raise click.ClickException(str(e).splitlines()[0] if str(e) else type(e).__name__) from e


def emit(value: Any, *, as_json: bool, text: Callable[[Any], str] | None = None) -> None:
    """One output path: JSON for machines, or a plain rendering for people."""
    import json  # not needed for --help

    if as_json:
        click.echo(json.dumps(value, indent=None, sort_keys=False, default=str))
    elif text is not None:
        click.echo(text(value))
    else:
        click.echo(json.dumps(value, indent=2, default=str))


# One instance for every command's --home: each click.Path() looks its gettext
# translations up on disk, and `cmem --help` builds every command.
HOME_FOLDER = click.Path(file_okay=False)


def agent_options(func: Callable) -> Callable:
    """--home and --agent, which say whose memory a command works on."""
    func = click.option("--agent", "agent_id", envvar="CMEM_AGENT",
                        help="Agent to act as (default: $CMEM_AGENT, cmem.toml, or the only agent).")(func)
    return click.option("--home", type=HOME_FOLDER, envvar="CMEM_HOME",
                        help="Folder holding the agents (default: $CMEM_HOME or ~/.cmem).")(func)


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


def open_agent(home: str | None, agent_id: str | None, **kwargs) -> Agent:
    from ..agent import Agent  # imported here so `cmem --help` stays fast
    return Agent.open(agent_id, home=home, **kwargs)


def init_agent(agent_id: str, home: str | None, **kwargs) -> Agent:
    from ..agent import Agent
    return Agent.init(agent_id, home=home, **kwargs)


# --- progress on long work ------------------------------------------------------------

class ProgressBars:
    """A Progress drawing one bar per stage on a stream; a new stage ends the previous bar."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.stage: str | None = None
        self._bar = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self.stage:
            self.close()
            from tqdm import tqdm  # only a terminal that sees long work pays for it
            self.stage = stage
            self._bar = tqdm(desc=stage, total=total or None, file=self.stream, unit="", leave=True)
        bar = self._bar
        if (total or None) != bar.total:  # a stage may learn its size as it goes
            bar.total = total or None
        bar.update(done - bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar = self.stage = None


@contextlib.contextmanager
def progress_bars(*, as_json: bool, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """Bars for a person watching a terminal; None for --json, pipes and files, which
    would otherwise get carriage returns mixed into what a program reads."""
    stream = sys.stderr if stream is None else stream
    if as_json or not stream.isatty():
        yield None
        return
    bars = ProgressBars(stream)
    try:
        yield bars
    finally:
        bars.close()
