"""Pictures people would rather look at than read: trust over time per peer, the field's
stability over time, a dream's clusters, and two sites' timeline as swimlanes.

Each function takes plain data (what the Agent's picture verbs gather, or a demo's log)
and returns the picture as SVG or PNG bytes, drawn by matplotlib without pyplot (no
display, no global state; a figure per call). matplotlib is the optional `plots` extra:
without it, `Unavailable` says how to get it in one line.
"""

from __future__ import annotations

import io
from datetime import datetime
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from .errors import BadInput

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("svg", "png")
INSTALL = "pictures need matplotlib: pip install 'collective-memory[plots]'"
# one colour per lane or series, readable on white and by most colour-blind readers (Okabe-Ito)
LABEL_LEVELS = (9, -15, 20, -26, 31, -37)  # points above (+) or below (-) a swimlane, nearest first
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")


class Unavailable(BadInput):
    """matplotlib is not installed."""

    def __init__(self):
        super().__init__("plot", INSTALL)


def plot_format(path: str) -> str:
    """The format a picture's file name asks for (.svg or .png); BadInput for any other,
    and Unavailable without matplotlib: said before any work is done."""
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix not in FORMATS:
        raise BadInput("plot", f"{path!r} must end in .svg or .png")
    import importlib.util
    if importlib.util.find_spec("matplotlib") is None:
        raise Unavailable()
    return suffix


def _figure(width: float = 7.5, height: float = 3.6) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise Unavailable() from e
    figure = Figure(figsize=(width, height), layout="constrained")
    figure.patch.set_facecolor("white")
    return figure


def _rendered(figure: Figure, fmt: str) -> bytes:
    out = io.BytesIO()
    # svg.hashsalt and no date: the same data draws the same bytes (a picture in the docs diffs cleanly)
    metadata = {"Date": None} if fmt == "svg" else {}
    import matplotlib
    with matplotlib.rc_context({"svg.hashsalt": "cmem", "svg.fonttype": "none"}):
        figure.savefig(out, format=fmt, dpi=110, metadata=metadata)
    return out.getvalue()


def _empty(axes, message: str) -> None:
    axes.text(0.5, 0.5, message, ha="center", va="center", transform=axes.transAxes, color="#6b7580")
    axes.set_xticks([])
    axes.set_yticks([])


def _time_axis(axes) -> None:
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
    locator = AutoDateLocator()
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    axes.grid(True, color="#e2e5ea", linewidth=0.8)
    axes.spines[["top", "right"]].set_visible(False)


def trust_over_time(series: Mapping[str, Sequence[tuple[datetime, float]]], *, fmt: str = "svg",
                    title: str = "Trust in each peer") -> bytes:
    """One step line per peer: its trust score here after each change (0 to 1)."""
    figure = _figure()
    axes = figure.add_subplot()
    drawn = {peer: points for peer, points in sorted(series.items()) if points}
    if not drawn:
        _empty(axes, "no trust changes yet: pull from a peer first")
    for n, (peer, points) in enumerate(drawn.items()):
        times, scores = zip(*points)
        axes.step(times, scores, where="post", label=peer, color=PALETTE[n % len(PALETTE)], linewidth=2)
        axes.plot(times, scores, "o", color=PALETTE[n % len(PALETTE)], markersize=3)
    if drawn:
        axes.set_ylim(0, 1.02)
        axes.set_ylabel("trust here")
        _time_axis(axes)
        axes.legend(loc="lower left", frameon=False, fontsize="small", ncols=min(len(drawn), 4))
    axes.set_title(title, loc="left", fontsize="medium")
    return _rendered(figure, fmt)


def stability_over_time(runs: Sequence[tuple[datetime, float, float]], *, fmt: str = "svg",
                        title: str = "Field stability, dream by dream") -> bytes:
    """Each dream's stability before (hollow) and after (filled), joined run to run: how
    settled the memory is, from 0 to 1."""
    figure = _figure()
    axes = figure.add_subplot()
    if not runs:
        _empty(axes, "no dreams yet: run `cmem dream`")
    else:
        times, before, after = zip(*sorted(runs))
        axes.vlines(times, before, after, color="#9aa4ae", linewidth=1)
        axes.plot(times, before, "o", markerfacecolor="white", color=PALETTE[0], label="before the dream")
        axes.plot(times, after, "o-", color=PALETTE[0], linewidth=2, label="after")
        axes.set_ylim(0, 1.02)
        axes.set_ylabel("stability")
        _time_axis(axes)
        axes.legend(loc="lower right", frameon=False, fontsize="small")
    axes.set_title(title, loc="left", fontsize="medium")
    return _rendered(figure, fmt)


def projected(vectors: np.ndarray) -> np.ndarray:
    """Vectors onto their first two principal components (a flat map of meaning)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    if len(vectors) < 2:
        return np.zeros((len(vectors), 2))
    centred = vectors - vectors.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    flat = centred @ axes[:2].T
    return flat if flat.shape[1] == 2 else np.hstack([flat, np.zeros((len(flat), 1))])


def dream_clusters(points: np.ndarray, clusters: Sequence[int], orders: Mapping[int, float], *,
                   fmt: str = "svg", title: str = "A dream's clusters") -> bytes:
    """The memories a dream clustered, on a flat map of their meaning (`projected`), one
    colour per cluster, its order (how in phase its members are, 0 to 1) in the legend."""
    figure = _figure(6.5, 4.4)
    axes = figure.add_subplot()
    if len(points) == 0:
        _empty(axes, "no clusters in this dream")
    for n, cluster in enumerate(sorted(set(clusters), key=lambda c: -list(clusters).count(c))):
        mask = np.array([c == cluster for c in clusters])
        axes.scatter(points[mask, 0], points[mask, 1], s=28, color=PALETTE[n % len(PALETTE)], alpha=0.85,
                     label=f"cluster {cluster}: {int(mask.sum())}, order {orders.get(cluster, 0):.2f}")
    if len(points):
        axes.set_xticks([])
        axes.set_yticks([])
        axes.legend(loc="best", frameon=False, fontsize="small")
    axes.set_title(title, loc="left", fontsize="medium")
    return _rendered(figure, fmt)


def timeline(lanes: Mapping[str, Sequence[tuple[float, str]]], crossings: Sequence[tuple[str, float, str, float]] = (),
             windows: Sequence[tuple[float, float]] = (), *, fmt: str = "svg", unit: str = "minutes",
             title: str = "Two sites, one link") -> bytes:
    """Swimlanes: what happened on each site (time, label), the copies that crossed the
    link as arrows (from lane, departed, to lane, landed), and the windows it was open."""
    figure = _figure(8.5, 1.4 + 1.1 * len(lanes))
    axes = figure.add_subplot()
    rows = {lane: n for n, lane in enumerate(reversed(list(lanes)))}
    for start, end in windows:
        axes.axvspan(start, end, color="#d4f2dc", alpha=0.7, linewidth=0)
    times = [at for events in lanes.values() for at, _ in events] + [t for c in crossings for t in c[1::2]]
    gap = 0.09 * ((max(times) - min(times)) if times else 1)  # labels closer than this go on other levels
    for lane, events in lanes.items():
        y = rows[lane]
        axes.axhline(y, color="#d5dae1", linewidth=1, zorder=0)
        last: dict[int, float] = {}  # a label level (points above or below the lane) -> where its last label sat
        for at, label in sorted(events):
            axes.plot([at], [y], "o", color=PALETTE[rows[lane] % len(PALETTE)], zorder=3)
            level = next(lv for lv in LABEL_LEVELS if at - last.get(lv, -float("inf")) >= gap or lv == LABEL_LEVELS[-1])
            last[level] = at
            axes.annotate(label, (at, y), xytext=(0, level), textcoords="offset points", ha="center",
                          fontsize="x-small")
    for source, departed, target, landed in crossings:
        axes.annotate("", xy=(landed, rows[target]), xytext=(departed, rows[source]),
                      arrowprops={"arrowstyle": "->", "color": "#6b7580", "linewidth": 1})
    axes.set_yticks(list(rows.values()), list(rows))
    axes.set_ylim(-0.8, len(lanes) - 0.2)
    axes.set_xlabel(unit + (" (green: the link open)" if windows else ""))
    axes.spines[["top", "right", "left"]].set_visible(False)
    axes.set_title(title, loc="left", fontsize="medium")
    return _rendered(figure, fmt)
