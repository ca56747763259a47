"""`make demo-mars` tells its story (scripts/mars_demo.py, run as a person runs it): the two
claims, who holds what each time the link opens and closes, the verdict, and what each
planet recalls at the end, with every agent on both planets holding the resolved case."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "mars_demo.py"


def test_the_mars_demo_tells_the_story_of_one_contradiction(tmp_path):
    drawn = Path(os.environ.get("CMEM_DOCS_IMAGES") or tmp_path) / "earth-mars-timeline.svg"
    drawn.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, str(SCRIPT), "--plot", str(drawn)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    claims = out.split("\n\n", 1)[0]
    assert "earth-1  The coolant pump in module C is safe to operate." in claims
    assert "mars-1   The coolant pump in module C is not safe to operate." in claims
    lines = out.splitlines()
    for moment in ("10:30", "11:00", "12:30", "13:00"):  # the link opens and closes
        held = [line for line in lines if line.startswith(moment) and " holds " in line and "claim" in line]
        assert {line.split()[1] for line in held} >= {"earth-1", "earth-2", "mars-1"}, moment
    assert "11:00  mars-1   holds mars-1's claim (not safe) disputed; earth-1's claim (safe) disputed" in out
    assert "11:15  ana      resolves dispute" in out and "keep mars-1's claim (not safe)" in out
    assert "13:00  mars-1   holds mars-1's claim (not safe); earth-1's claim (safe) refuted" in out
    recalled = out.split("What each planet recalls at 13:00:", 1)[1]
    for name in ("earth-1 on Earth", "earth-2 on Earth", "mars-1 on Mars"):
        part = recalled.split(f"  {name}:", 1)[1].splitlines()[1]
        assert part.rstrip().endswith("The coolant pump in module C is not safe to operate.  (mars-1)"), name
    assert "every agent on both planets holds the same resolved case(s): yes" in out
    # and the day as two swimlanes: both claims, the verdict, the copies crossing the link
    drawn_text = " ".join(el.text for el in ET.parse(drawn).getroot().iter() if el.text and el.text.strip())
    for label in ("Earth", "Mars", "earth-1: safe", "mars-1: not safe", "ana's verdict: not safe", "mars-1: resolved"):
        assert label in drawn_text, label
