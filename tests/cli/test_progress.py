"""Progress bars: drawn for a person at a terminal, never into --json, a pipe or a file."""

from __future__ import annotations

import io

import pytest

from collective.cli.common import ProgressBars, progress_bars


class Stream(io.StringIO):
    def __init__(self, terminal: bool):
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize("terminal, as_json, drawn", [
    (True, False, True),
    (True, True, False),
    (False, False, False),
    (False, True, False),
])
def test_bars_only_on_a_terminal_without_json(terminal, as_json, drawn):
    stream = Stream(terminal)
    with progress_bars(as_json=as_json, stream=stream) as progress:
        assert (progress is not None) == drawn
        if progress is not None:
            progress("index", 3, 10)
    assert bool(stream.getvalue()) == drawn


def test_a_bar_per_stage_each_ended_when_the_next_begins():
    stream = Stream(terminal=True)
    with progress_bars(as_json=False, stream=stream) as progress:
        progress("index", 0, 10)
        progress("index", 10, 10)
        progress("judge", 0, 0)  # size unknown so far
        progress("judge", 4, 8)
        assert isinstance(progress, ProgressBars) and progress.stage == "judge"
        drawn = stream.getvalue()
        assert "index: 100%" in drawn and drawn.rstrip("\r").count("\n") == 1  # index's bar ended its line
        progress("judge", 8, 8)
    assert progress.stage is None
    index, judge, after = stream.getvalue().split("\n")  # each bar redraws its line after a carriage return
    assert index.split("\r")[-1].startswith("index: 100%") and "10/10" in index
    assert judge.split("\r")[-1].startswith("judge: 100%") and "8/8" in judge and after == ""
