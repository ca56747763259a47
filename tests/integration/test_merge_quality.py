"""The merge-quality benchmark on real text, small: our own dev chats (in the repository) at
--quick, and each downloaded corpus only where it is already cached (never the network).

Only the shape of its one JSON line and that its counts add up are checked, not the judge's
figures: those are what the benchmark is for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts_support import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_merge_quality.py"
RELATIONS = {"constructive", "destructive", "partial", "independent"}


def corpora():
    sys.path.insert(0, str(SCRIPT.parent))
    return load_script("merge_corpora")


def run(tmp_path: Path, *argv: str) -> dict:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(SCRIPT), *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = done.stdout.splitlines()
    return json.loads(line)


def check(record: dict, *, questions: bool) -> None:
    """The fields every corpus reports, within their bounds, adding up."""
    pulled = record["memories"]["pulled"]
    assert pulled == record["memories"]["b"] > 0
    assert set(record["relations"]) == RELATIONS
    assert sum(record["relations"].values()) == record["pairs"]
    assert record["relations"]["destructive"] == record["disputes"]
    assert record["disputes_per_1000"] == round(1000 * record["disputes"] / pulled, 1)
    assert 0 <= record["disputed_memories_per_1000"] <= 1000
    assert 0 <= record["hidden"] <= pulled and 0 <= record["absorbed"] <= pulled
    assert 0 <= record["baseline_hidden_per_1000"] <= 1000
    assert 0.1 <= record["trust_after_pull"] <= 1.0
    assert record["pairs_per_s"] is None or record["pairs_per_s"] > 0
    recall = record["recall"]
    assert recall["k"] == 5
    if questions:
        assert recall["questions"] > 0
        assert 0 <= recall["merged"] <= 1 and 0 <= recall["baseline"] <= 1
    if record["truth_known"]:
        assert record["true_disputes"] + record["false_disputes"] <= record["disputes"]
        assert record["true_disputes"] <= record["contradictions_planted"]
        for key in ("dispute_precision", "dispute_recall"):
            assert record[key] is None or 0 <= record[key] <= 1
        labelled = record["labelled"]
        assert sum(labelled["contradiction"].values()) == record["contradictions_planted"]
        assert labelled["contradiction"].get("destructive", 0) == record["true_disputes"]


def test_quick_run_on_the_dev_chats(tmp_path):
    out = run(tmp_path, "--quick", "--cache", str(tmp_path / "empty-cache"))
    assert out["bench"] == "merge_quality" and "baseline" in out
    assert list(out["corpora"]) == ["chats-dev"]
    record = out["corpora"]["chats-dev"]
    check(record, questions=True)
    assert sum(record["pulled_by_label"].values()) == record["memories"]["pulled"]
    assert set(record["pulled_by_label"]) == {"new", "agreement", "contradiction"}
    for counts in (record["absorbed_by_label"], record["hidden_by_label"]):
        assert all(counts[k] <= record["pulled_by_label"][k] for k in counts)
    assert not (tmp_path / "empty-cache").exists(), "the chats need no download"


@pytest.mark.parametrize("part", ["dev", "blind"])
def test_the_chats_files_are_sound(part):
    module = corpora()
    assert module.check_chats(part) == []
    chats = module.chat_lines(part)
    assert len(chats) >= (20 if part == "dev" else 10)
    labels = [m["label"] for chat in chats for m in chat["b"]]
    assert labels.count("new") > labels.count("contradiction") > 0 and "agreement" in labels


def test_the_snli_rule_keeps_denials_and_changed_values_only():
    rule = corpora().denies_or_changes
    assert rule("A man in a red shirt is cooking.", "A man in a blue shirt is cooking.") == "value"
    assert rule("Two dogs run on the beach.", "Three dogs run on the beach.") == "value"
    assert rule("2 dogs run on the beach.", "Two dogs run on the beach.") is None  # the same number
    assert rule("A woman sits outside a cafe.", "A woman sits inside a cafe.") == "value"
    assert rule("A boy is holding a kite.", "A boy is not holding a kite.") == "negation"
    assert rule("A man sleeps on a bench.", "A man runs on a bench.") is None  # another activity
    assert rule("A man sleeps on a bench.", "A woman is dancing.") is None


@pytest.mark.parametrize("name", ["hotpot", "snli", "longmemeval", "pyfaq"])
def test_a_cached_corpus_runs(name, tmp_path):
    root = Path(os.environ.get("CMEM_TOOLS_CACHE") or Path.home() / ".cache" / "collective-memory")
    if not corpora().is_cached(name, root):
        pytest.skip(f"{name} is not cached in {root} (the benchmark downloads it on first use)")
    out = run(tmp_path, "--corpus", name, "--limit", "80", "--cache", str(root))
    (record,) = out["corpora"].values()
    check(record, questions=name != "snli")
    assert record["truth_known"] == (name == "snli")
