"""The learned judge: its combiner file is rebuilt exactly, it never absorbs different objects
or an unsure pair, and it is the default judge."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from collective.judge import RELATIONS, LearnedJudge, RuleJudge, default_judge
from collective.judge.features import FEATURES, judge_features
from collective.judge.learned import DESTRUCTIVE_UNSEEN_MIN, decide, shipped_combiner

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "collective" / "judge" / "judge_data" / "combiner.json"
HIGH = 0.95  # a cosine above every gate


@pytest.fixture(scope="module")
def judge() -> LearnedJudge:
    return LearnedJudge()


def test_the_rule_judge_stays_the_default_and_the_learned_one_is_fork_safe():
    assert isinstance(default_judge(), RuleJudge)
    assert LearnedJudge.fork_safe is True
    assert shipped_combiner().coef.flags.writeable is False


def test_combiner_matches_the_features():
    spec = shipped_combiner()
    assert spec.coef.shape == (len(RELATIONS), len(FEATURES))
    assert SHIPPED.stat().st_size < 32_000  # small


@pytest.mark.parametrize("a, b", [
    ("Pump P-101 is offline for maintenance.", "Pump P-102 is offline for maintenance."),
    ("Valve R2-1 is not open.", "Valve R1-1 is not open."),
    ("Deck 1 hatch is sealed.", "Deck 2 hatch is sealed."),
    ("The P-101 feed pump was serviced by Ana.", "Ana serviced the P-102 feed pump."),
    ("Server web-01 is at 95% CPU.", "Server web-02 is at 95% CPU."),
    ("Store 118 is out of bottled water.", "Store 181 is out of bottled water."),
])
def test_different_objects_are_never_constructive(judge, a, b):
    for x, y in ((a, b), (b, a)):
        v = judge.judge(x, y, HIGH)
        assert v.relation != "constructive", v
    assert judge.analyse(a).ids and judge.analyse(a).ids != judge.analyse(b).ids


@pytest.mark.parametrize("statement", ["is safe to operate", "is sealed"])
def test_a_bracketed_aside_is_neither_the_object_nor_a_quantity(judge, statement):
    v = judge.judge(f"Coolant pump 7 in module H {statement} (report 12)",
                    f"Coolant pump 7 in module H {statement} (report 20451)", HIGH)
    assert v.relation == "constructive", v


def test_same_tag_under_another_noun_is_the_same_object(judge):
    v = judge.judge("Host db-01 is down.", "The db-01 server is down.", HIGH)
    assert v.relation == "constructive"


def test_unsure_is_never_constructive():
    x = [0.0] * len(FEATURES)
    c, d = RELATIONS.index("constructive"), RELATIONS.index("destructive")
    assert decide([0.5, 0.1, 0.3, 0.1], x, 0.55) != c  # below the threshold: the next best
    assert decide([0.5, 0.1, 0.3, 0.1], x, 0.55) == RELATIONS.index("partial")
    assert decide([0.6, 0.1, 0.2, 0.1], x, 0.55) == c
    different = list(x)
    different[FEATURES.index("different_objects")] = 1.0
    assert decide([0.97, 0.01, 0.01, 0.01], different, 0.55) != c
    # a contradiction with no sign of one needs a sure model
    assert decide([0.1, DESTRUCTIVE_UNSEEN_MIN - 0.05, 0.3, 0.05], x, 0.55) != d
    clash = list(x)
    clash[FEATURES.index("any_clash")] = 1.0
    assert decide([0.1, DESTRUCTIVE_UNSEEN_MIN - 0.05, 0.3, 0.05], clash, 0.55) == d


def test_features_are_finite_and_named(judge):
    rule, x = judge_features(judge.analyse("The reactor is safe."), judge.analyse("The reactor is not safe."), 0.97, 0.3)
    assert len(x) == len(FEATURES) and all(v == v for v in x)
    assert rule.verdict() == RuleJudge().judge("The reactor is safe.", "The reactor is not safe.", 0.97)


def test_verdict_keeps_the_rules_evidence(judge):
    v = judge.judge("The EVA starts at 14:00.", "The EVA starts at 09:00.", HIGH)
    assert v.relation == "destructive" and any(c.startswith("time:") for c in v.clashed)
    v = judge.judge("The hull is breached, evacuate now.", "The hull is intact.", 0.8)
    assert v.relation != "constructive"


def test_dev_set_generator_is_deterministic(tmp_path):
    out = tmp_path / "gen.jsonl"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_judge_dev.py"), "--out", str(out)], check=True,
                   capture_output=True)
    assert out.read_bytes() == (ROOT / "tests" / "data" / "judge_dev_gen.jsonl").read_bytes()


@pytest.mark.heavy
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="scikit-learn (the test extra) is not installed")
def test_training_rebuilds_the_shipped_combiner_exactly(tmp_path):
    out = tmp_path / "combiner.json"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_judge.py"), "--no-cv", "--no-gates", "--out", str(out)],
                          capture_output=True, text=True)
    if done.returncode != 0 and "embedder" in done.stderr.lower():
        pytest.skip("the default embedder is unavailable")
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == SHIPPED.read_bytes()


def test_the_gates_keep_another_fact_about_a_person_out_of_quarantine():
    """Another fact about the same person is no contradiction, whatever the embedder says;
    the same attribute with another value still is (pairs from no training set)."""
    from collective.judge import LearnedJudge
    from collective.judge.default import judge_texts

    judge = LearnedJudge()
    for a, b in [("Tomas keeps bees on the roof of his building.", "Tomas's sister Ana works as a nurse in Porto."),
                 ("Mina is lactose intolerant.", "Mina's husband is called Idris."),
                 ("The Orla project uses Kafka for its event stream.", "The Orla project has four engineers.")]:
        assert judge_texts(a, b, judge=judge).relation != "destructive", (a, b)
    assert judge_texts("The reactor coolant pump is safe to operate.", "The reactor coolant pump is not safe to operate.",
                       judge=judge).relation == "destructive"


def test_the_shipped_gates_match_the_features():
    from collective.judge.learned import Gates, shipped_gates

    spec = json.loads((SHIPPED.parent / "gates.json").read_text(encoding="utf-8"))
    assert isinstance(shipped_gates(), Gates)
    with pytest.raises(ValueError, match="gates file"):
        Gates({**spec, "features": spec["features"][:-1]})


def test_the_rules_reason_is_written_only_where_the_verdict_says_it(monkeypatch):
    """Where the learned judge overrules the rules, the rules' reason is never written (a
    reason costs about a quarter of judging a pair); the rule judge still writes it."""
    import collective.judge.reasons as reasons
    written = []
    agreement = reasons.agreement
    monkeypatch.setattr(reasons, "agreement", lambda *a: written.append(a) or agreement(*a))
    a, b = "The basalt sample from site 4 contains olivine.", "Olivine was identified in the site 4 basalt sample."
    overruled = LearnedJudge().judge(a, b, 0.7)
    assert overruled.relation == "partial" and overruled.reason and not written
    kept = RuleJudge().judge(a, b, 0.7)
    assert kept.relation == "constructive" and len(written) == 1 and kept.reason == agreement(*written[0])


@pytest.mark.parametrize("a, b, sim", [
    ("At 2 pm room 4 is occupied.", "Milk collection is at 3 in the afternoon.", 0.35),
    ("Sensor download at the weather station is scheduled for 17:45.", "Last night the fire alarm went off at 3:12 am.",
     0.38),
    ("This week RG-1 collected 31 mm.", "1.4 m showing on the Mill Lane river gauge", 0.35),
    ("The irrigation timer for the orchard is set for 5 am.", "The store's morning delivery arrives at 6 am.", 0.36),
])
def test_a_number_or_time_in_two_texts_about_nothing_in_common_is_no_contradiction(judge, a, b, sim):
    # texts of different topics that a pull judges (above the candidate floor): the combiner
    # called each a contradiction, which opens a dispute nobody can settle
    for x, y in ((a, b), (b, a)):
        assert judge.judge(x, y, sim).relation != "destructive"


@pytest.mark.parametrize("a, b, sim", [
    ("Jess is on call on Saturday.", "Jess's on-call day is Tuesday.", 0.89),
    ("The database went down at 22:31 UTC.", "DB outage began 19:02 UTC.", 0.75),
    ("cert-manager renewed the cert at 02:00 UTC.", "The certificate renewal ran at 12:30 UTC.", 0.77),
    ("Release 6.1 shipped on Tuesday.", "v6.1 went out Thursday.", 0.56),
])
def test_one_event_at_two_times_is_still_a_contradiction(judge, a, b, sim):
    assert judge.judge(a, b, sim).relation == "destructive"
