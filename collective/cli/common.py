"""What every `cmem` command shares: options, error mapping, output, opening an agent, progress."""

from __future__ import annotations

import contextlib
import math
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, TextIO

import click

from ..errors import BadInput, CollectiveError, NotShared, one_line, shortened

if TYPE_CHECKING:
    from ..agent import Agent
    from ..runtime.progress import Progress


class UsageFailure(click.ClickException):
    exit_code = 2


# --- bad input, once for every command ----------------------------------------------

# An empty value on the command line is most often `"$ID"` of a variable set in another
# shell (or not at all): said after the error, which alone does not tell the cause.
EMPTY_HINT = "(empty: was the variable set in this shell?)"


class StrictText(click.ParamType):
    """A parameter's own type behind a check of the raw text: valid UTF-8 and no NUL, or a
    one-line usage error (exit 2) naming the parameter. Command-line arguments that are
    not UTF-8 reach Python as lone surrogates, which no engine can store. Also refused: an
    option typed empty (code reads "" as not given, so `--agent ""` acted as the default
    agent), and a number that is not finite (click's ranges let nan through)."""

    def __init__(self, inner: click.ParamType):
        self.inner = inner
        self.name = inner.name
        self.is_composite = inner.is_composite
        self.arity = inner.arity
        self.envvar_list_splitter = inner.envvar_list_splitter

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            from ..model import text_problem
            problem = text_problem(value) or (f"must not be empty {EMPTY_HINT}"
                                              if value == "" and _typed_option(param, ctx) else None)
            if problem:
                self.fail(problem, param, ctx)
        converted = self.inner.convert(value, param, ctx)
        if isinstance(converted, float) and not math.isfinite(converted):
            self.fail(f"must be a finite number, got {value!r}", param, ctx)
        return converted

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        return self.inner.get_metavar(param, ctx)

    def get_missing_message(self, param: click.Parameter, ctx: click.Context | None) -> str | None:
        return self.inner.get_missing_message(param, ctx)

    def to_info_dict(self) -> dict[str, Any]:
        return self.inner.to_info_dict()

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
        return self.inner.shell_complete(ctx, param, incomplete)


def _typed_option(param: click.Parameter | None, ctx: click.Context | None) -> bool:
    """An option given on the command line: an empty environment variable still means unset
    (click skips it), and an empty argument is left to the command's own check."""
    from click.core import ParameterSource
    return (isinstance(param, click.Option) and ctx is not None and param.name is not None
            and ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE)


def strict_text(command: click.Command) -> click.Command:
    """Put StrictText in front of every parameter of `command` and of its subcommands, so a
    command added later is covered without saying so. Flags take no text and keep their own
    type: click reads a flag left out as False only when its type is the boolean one (behind
    StrictText it read None, and `counts[False]` of a folder guard saw no refusal)."""
    for param in command.params:
        if not isinstance(param.type, StrictText) and not getattr(param, "is_flag", False):
            param.type = StrictText(param.type)
    for sub in getattr(command, "commands", {}).values():
        strict_text(sub)
    return command


class OneLineErrors(click.Group):
    """A group whose usage errors print one line, `Error: ... (see 'cmem CMD --help')`, exit 2,
    instead of click's usage block: a program reading stderr gets one line per failure."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:  # `cmem remote` alone: the help is the answer
            e.show()
            sys.exit(e.exit_code)
        except click.UsageError as e:
            click.echo(f"Error: {_usage_line(e)}", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(f"Error: {_one_line(e.format_message())}", err=True)
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _one_line(text: str) -> str:
    """click's message on one line, a long value it quotes (`--status` of 2 MB) cut as ours are."""
    return shortened(" ".join(text.split()))


def _usage_line(e: click.UsageError) -> str:
    """A bad value is named like BadInput's fields (`importance: ...`); any other usage error
    points at the command's help."""
    if isinstance(e, click.BadParameter) and not isinstance(e, click.MissingParameter) and e.param is not None:
        name = e.param.opts[0].lstrip("-") if e.param.opts else e.param.name
        return f"{name}: {_one_line(e.message)}"
    where = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
    return _one_line(e.format_message()) + where


class NotSharedFailure(click.ClickException):
    """Done here, not on the commons: its own status, so a script knows not to redo it."""
    exit_code = NotShared.exit_code


@contextlib.contextmanager
def cli_errors() -> Iterator[None]:
    """BadInput -> exit 2, NotShared -> exit 3, any other CollectiveError -> exit 1, one line each.
    Bad input from a command given an empty argument says what likely emptied it."""
    try:
        yield
    except BadInput as e:
        raise UsageFailure(one_line(e) + (f" {EMPTY_HINT}" if _empty_argument() else "")) from e
    except NotShared as e:
        raise NotSharedFailure(one_line(e)) from e
    except CollectiveError as e:
        raise click.ClickException(one_line(e)) from e


def _empty_argument() -> bool:
    """Whether the running command was given an argument typed empty (`cmem show ""`): its
    own check, or a lookup of '', refuses it (an empty option is refused before, with the hint)."""
    from click.core import ParameterSource
    ctx = click.get_current_context(silent=True)
    return ctx is not None and any(
        isinstance(param, click.Argument) and param.name is not None and ctx.params.get(param.name) == ""
        and ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE for param in ctx.command.params)


def emit(value: Any, *, as_json: bool, text: Callable[[Any], str] | None = None) -> None:
    """One output path: JSON for machines (the front door's, reports.to_json), or a plain
    rendering for people of the same JSON."""
    from ..reports import plain, to_json

    if as_json:
        click.echo(to_json(value))
    elif text is not None:
        click.echo(text(plain(value)))
    else:
        click.echo(to_json(value, indent=2))


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


def plot_option(what: str) -> Callable:
    """--plot FILE: also draw `what` to FILE (.svg or .png), checked before any work."""
    def checked(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is not None:
            from ..plots import plot_format
            try:
                plot_format(value)
                _plot_target(value)
            except BadInput as e:
                raise UsageFailure(one_line(e)) from e
        return value
    return click.option("--plot", "plot_path", metavar="FILE", callback=checked,
                        help=f"Also draw {what} to FILE (.svg or .png).")


def _plot_target(path: str) -> None:
    """BadInput unless a picture can be written at `path`: said before the work (a dream
    commits), not as a traceback after it."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(path):
        raise BadInput("plot", f"{path!r} is a folder, not a file")
    if not os.path.isdir(folder):
        raise BadInput("plot", f"{path!r}: its folder {folder!r} does not exist" if not os.path.exists(folder)
                       else f"{path!r}: {folder!r} is not a folder")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise BadInput("plot", f"{path!r} cannot be written here (permission denied)")


def write_plot(path: str | None, picture: str, *args: Any, **kwargs: Any) -> None:
    """collective.plots' `picture`(*args, **kwargs) written to `path`, when asked for (said
    on stderr); the plots module (numpy, matplotlib) loads only then."""
    if path is None:
        return
    from pathlib import Path

    from .. import plots
    Path(path).write_bytes(getattr(plots, picture)(*args, fmt=plots.plot_format(path), **kwargs))
    click.echo(f"drew {path}", err=True)


def filter_options(func: Callable) -> Callable:
    """--tag, --category, --origin, --since, --until: what recall and list are narrowed to."""
    for option in reversed([
            click.option("--tag", "tags", multiple=True, help="Only memories with this tag; repeat: with all of them."),
            click.option("--category", "categories", multiple=True,
                         help="Only memories of this category; repeat: of any of them."),
            click.option("--origin", "origins", multiple=True,
                         help="Only memories this agent first stored; repeat: from any of them."),
            click.option("--since", help="Only memories created at or after this ISO-8601 time."),
            click.option("--until", help="Only memories created at or before this ISO-8601 time.")]):
        func = option(func)
    return func


@contextlib.contextmanager
def open_agent(home: str | None, agent_id: str | None, **kwargs) -> Iterator[Agent]:
    """The agent a command acts as, closed after it. What the command left in the outbox
    is published as it ends, where a NATS server is named (events.service.publish_waiting):
    a store or a push signals without a listener or a flush."""
    from ..agent import Agent  # imported here so `cmem --help` stays fast
    with Agent.open(agent_id, home=home, **kwargs) as agent:
        yield agent
        if agent.home.names_nats:  # else nothing to publish to: no event machinery is loaded
            from ..sync.events.service import publish_waiting
            publish_waiting(agent.sync_port(), agent.home)


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
