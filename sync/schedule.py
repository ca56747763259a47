"""When sync may cross: a window schedule, and the [sync] section of cmem.toml.

A schedule is a list of UTC intervals (`2026-12-01T10:00Z/2026-12-01T10:30Z`) or a daily
pattern (`06:00-06:30`, UTC); no schedule means always open. An interval that ends before
it starts, two that overlap, a negative delay or interval are refused (BadInput: one line,
exit 2 at the CLI), whether they come from the command line or from cmem.toml.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, time, timedelta, timezone
from typing import Any, ClassVar, Sequence

from collective.config import setting
from collective.core.wave import AMPLITUDE_CAP
from collective.errors import BadInput

DAY = timedelta(days=1)
Window = tuple[datetime, datetime]


def _instant(text: str, field_: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise BadInput(field_, f"{text!r} is not an ISO time such as 2026-12-01T10:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:  # a valid time whose UTC falls before year 1 or after 9999
        raise BadInput(field_, f"{text!r} is outside years 1 to 9999 in UTC") from None


def _clock_time(text: str, field_: str) -> timedelta:
    try:
        parsed = time.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(field_, f"{text!r} is not a time of day such as 06:30") from None
    return timedelta(hours=parsed.hour, minutes=parsed.minute, seconds=parsed.second)


def _checked(spans: list[tuple[Any, Any]], texts: list[str], field_: str) -> None:
    for (start, end), text in zip(spans, texts):
        if end <= start:
            raise BadInput(field_, f"{text} ends before it starts (split a window that crosses midnight in two)"
                           if field_ == "daily" else f"{text} ends before it starts")
    order = sorted(range(len(spans)), key=lambda i: spans[i][0])
    for first, second in zip(order, order[1:]):
        if spans[second][0] < spans[first][1]:
            raise BadInput(field_, f"{texts[first]} overlaps {texts[second]}")


def _spans(texts: Sequence[str], separator: str, read, field_: str, shape: str) -> list:
    """Each text split at `separator` into a start and an end, read, then checked together."""
    spans = []
    for text in texts:
        if not isinstance(text, str) or text.count(separator) != 1:
            raise BadInput(field_, f"{text!r} is not {shape}")
        start, end = text.split(separator)
        spans.append((read(start, field_), read(end, field_)))
    _checked(spans, list(texts), field_)
    return spans


@dataclass(frozen=True)
class Schedule:
    """Windows as absolute UTC intervals, or as offsets into every UTC day."""

    intervals: tuple[Window, ...] = ()
    daily: tuple[tuple[timedelta, timedelta], ...] = ()

    @classmethod
    def parse(cls, windows: Sequence[str] = (), daily: Sequence[str] = ()) -> "Schedule":
        """From `START/END` intervals or `HH:MM-HH:MM` daily windows (one kind, not both)."""
        if windows and daily:
            raise BadInput("window", "give UTC intervals or a daily pattern, not both")
        intervals = _spans(windows, "/", _instant, "window", "START/END, e.g. 2026-12-01T10:00Z/2026-12-01T10:30Z")
        days = _spans(daily, "-", _clock_time, "daily", "HH:MM-HH:MM, e.g. 06:00-06:30")
        return cls(tuple(sorted(intervals)), tuple(sorted(days)))

    @property
    def always_open(self) -> bool:
        return not self.intervals and not self.daily

    def _around(self, moment: datetime) -> list[Window]:
        if self.intervals:
            return list(self.intervals)
        midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        return [(midnight + k * DAY + s, midnight + k * DAY + e) for k in (-1, 0, 1, 2) for s, e in self.daily]

    def window_at(self, moment: datetime) -> Window | None:
        """The window open at `moment` ([start, end)), or None."""
        if self.always_open:
            return (moment, datetime.max.replace(tzinfo=timezone.utc))
        return next(((s, e) for s, e in self._around(moment) if s <= moment < e), None)

    def next_window(self, moment: datetime) -> Window | None:
        """The window open at `moment`, else the next one to open; None when none will."""
        return self.window_at(moment) or next(((s, e) for s, e in self._around(moment) if s > moment), None)

    def describe(self) -> list[str]:
        if self.intervals:
            return [f"{s.isoformat()}/{e.isoformat()}" for s, e in self.intervals]
        return [f"{_hhmm(s)}-{_hhmm(e)} daily" for s, e in self.daily]


def _hhmm(offset: timedelta) -> str:
    seconds = int(offset.total_seconds())
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}"


MOST = 366 * 24 * 3600  # a delay (seconds) or interval (minutes) of more than a year is a typo


def non_negative(value: Any, field_: str, unit: str, most: float = MOST) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        raise BadInput(field_, f"must be zero or more {unit}, got {value!r}")
    if value > most:
        raise BadInput(field_, f"must be at most {most} {unit}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class SyncSettings:
    """[sync] in cmem.toml (Home.section(SyncSettings)); command-line options go over it (merged)."""

    TABLE: ClassVar[str] = "sync"

    interval: float = setting(15.0, "minutes between normal pushes and pulls inside a window", above=0, at_most=MOST,
                              unit="minutes")
    windows: tuple[str, ...] = setting((), "UTC intervals START/END in which sync may cross", kind=(str,))
    daily: tuple[str, ...] = setting((), "or a daily pattern HH:MM-HH:MM (UTC); neither: always open", kind=(str,))
    delay: float = setting(0.0, "seconds a copy between sites takes (cmem sync relay)", at_least=0, at_most=MOST,
                           unit="seconds")
    capacity: int = setting(0, "branch copies per window and direction on the link (0: no limit)", at_least=0)
    # an amplitude: no memory's exceeds the merge's cap
    priority_amplitude: float = setting(0.9, "memories above this amplitude go first in the next window",
                                        at_least=0, at_most=AMPLITUDE_CAP)
    schedule: Schedule = field(init=False, repr=False, compare=False)  # windows or daily, parsed

    def __post_init__(self) -> None:
        object.__setattr__(self, "schedule", Schedule.parse(self.windows, self.daily))

    @classmethod
    def build(cls, **given: Any) -> "SyncSettings":
        """From command-line values (a problem names the option); defaults for the rest."""
        values = {f.name: f.default for f in fields(cls) if f.init} | given
        interval = non_negative(values["interval"], "interval", "minutes")
        if interval == 0:
            raise BadInput("interval", "must be more than 0 minutes")
        capacity = values["capacity"]
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0:
            raise BadInput("capacity", f"must be a whole number, 0 or more, got {capacity!r}")
        return cls(interval, tuple(values["windows"]), tuple(values["daily"]),
                   non_negative(values["delay"], "delay", "seconds"), capacity,
                   non_negative(values["priority_amplitude"], "priority_amplitude", "units of amplitude",
                                AMPLITUDE_CAP))

    def merged(self, **given: Any) -> "SyncSettings":
        """These settings with the command line's options (None: not given) on top; windows or
        daily given replace both of ours."""
        windows, daily = given.pop("windows", ()), given.pop("daily", ())
        if not (windows or daily):
            windows, daily = self.windows, self.daily
        values = {"interval": self.interval, "delay": self.delay, "capacity": self.capacity,
                  "priority_amplitude": self.priority_amplitude}
        values.update({k: v for k, v in given.items() if v is not None})
        return SyncSettings.build(windows=windows, daily=daily, **values)
