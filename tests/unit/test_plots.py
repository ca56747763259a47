"""The pictures (collective/plots.py): each draws its data as a real SVG or PNG, the same
data draws the same bytes, and a file name that is neither is refused in one line.
With $CMEM_DOCS_IMAGES naming a folder (`make docs-images`), the pictures land there for the docs."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from collective import plots
from collective.errors import BadInput

T0 = datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc)
TRUST = {"mars-1": [(T0, 0.5), (T0 + timedelta(hours=3), 0.49), (T0 + timedelta(hours=9), 0.62)],
         "earth-2": [(T0 + timedelta(hours=1), 0.5), (T0 + timedelta(hours=6), 0.55)]}
RUNS = [(T0 + timedelta(hours=h), before, after) for h, before, after in ((2, 0.41, 0.52), (8, 0.50, 0.58),
                                                                          (14, 0.57, 0.63))]
# an Earth-Mars day: a store, the window, the copy crossing (12.5 min of light), the pull and the dispute
LANES = {"Earth": [(0, "store: pump safe"), (30, "push")], "Mars": [(5, "store: pump not safe"), (43, "pull: dispute")]}
CROSSINGS = [("Earth", 30, "Mars", 42.5)]
WINDOWS = [(25, 60)]


def texts(svg: bytes) -> str:
    """All the text an SVG draws (it parses: a real document)."""
    return " ".join(t for el in ET.fromstring(svg).iter() for t in [el.text] if t and t.strip())


def keep(name: str, data: bytes) -> None:
    folder = os.environ.get("CMEM_DOCS_IMAGES")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(data)


def test_trust_over_time_draws_a_line_per_peer_and_says_when_there_is_none():
    svg = plots.trust_over_time(TRUST)
    assert "mars-1" in texts(svg) and "earth-2" in texts(svg) and "trust here" in texts(svg)
    assert svg == plots.trust_over_time(TRUST)  # the same data, the same bytes (docs diff cleanly)
    keep("trust.svg", svg)
    assert "pull from a peer first" in texts(plots.trust_over_time({}))


def test_stability_over_time_draws_each_dream_before_and_after():
    svg = plots.stability_over_time(RUNS)
    assert "before the dream" in texts(svg) and "stability" in texts(svg)
    keep("stability.svg", svg)
    assert "no dreams yet" in texts(plots.stability_over_time([]))


def test_a_dreams_clusters_land_apart_on_the_flat_map():
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(3, 32))
    vectors = np.vstack([c + 0.05 * rng.normal(size=(6, 32)) for c in centres])
    points = plots.projected(vectors)
    assert points.shape == (18, 2)
    spread = [np.linalg.norm(points[i * 6:(i + 1) * 6].std(axis=0)) for i in range(3)]
    gaps = [np.linalg.norm(points[i * 6:(i + 1) * 6].mean(axis=0) - points[j * 6:(j + 1) * 6].mean(axis=0))
            for i, j in ((0, 1), (0, 2), (1, 2))]
    assert max(spread) < min(gaps) / 3  # each cluster is a tight knot, far from the others
    svg = plots.dream_clusters(points, [0] * 6 + [1] * 6 + [2] * 6, {0: 0.91, 1: 0.75, 2: 0.5})
    assert "cluster 0: 6, order 0.91" in texts(svg)
    keep("dream-clusters.svg", svg)
    assert plots.projected(np.ones((1, 4))).shape == (1, 2)


def test_the_timeline_has_a_lane_per_site_and_png_works_too():
    svg = plots.timeline(LANES, CROSSINGS, WINDOWS, title="Earth and Mars, one sol")
    assert all(label in texts(svg) for label in ("Earth", "Mars", "pull: dispute", "the link open"))
    png = plots.timeline(LANES, CROSSINGS, WINDOWS, fmt="png")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize("name", ["trust.txt", "trust", "trust.svg.bak"])
def test_a_file_that_is_not_svg_or_png_is_refused_in_one_line(name):
    with pytest.raises(BadInput, match=r"must end in \.svg or \.png"):
        plots.plot_format(name)
    assert plots.plot_format("T.PNG") == "png"
