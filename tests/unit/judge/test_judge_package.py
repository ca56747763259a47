"""The judge package's shape: lazy public names, and the order of the comparison rules."""

from __future__ import annotations

import subprocess
import sys

import collective.judge
from collective.judge.rules import RULES


def test_the_protocol_and_the_stance_estimator_load_without_the_reader():
    code = ("import sys, collective.judge.protocol, collective.judge.stance, collective.judge.cache; "
            "print(sorted(m for m in sys.modules if m.startswith('collective.judge.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "reader" not in out and "rule_judge" not in out and "collective.judge.protocol" in out


def test_every_public_name_resolves():
    for name in collective.judge.__all__:
        assert getattr(collective.judge, name) is not None
    assert collective.judge.RuleJudge is collective.judge.rule_judge.RuleJudge


def test_the_rules_run_in_the_judges_order():
    # gates, then the slots (people may decide), then the decisions; the first answer wins
    assert [r.__name__ for r in RULES] == [
        "different_objects", "different_topics", "retraction",
        "quantities", "times", "days", "places", "people", "roles", "states", "negation",
        "hedge", "clash_of_other_subjects", "contradiction", "restriction",
        "same_statement_other_subjects", "other_attribute", "agreement", "same_object_otherwise",
        "nothing_in_common",
    ]


def test_a_hedge_outranks_a_clash():
    v = collective.judge.RuleJudge().judge("The pump might be leaking.", "The pump is not leaking.", 0.9)
    assert v.relation == "partial" and v.clashed  # the clash is recorded, the hedge decides


def test_replacing_the_packages_analyse_text_reaches_every_rule_judge(monkeypatch):
    seen: list[str] = []
    real = collective.judge.analyse_text
    monkeypatch.setattr(collective.judge, "analyse_text", lambda text: seen.append(text) or real(text))
    rj = collective.judge.RuleJudge()
    rj.judge("Tank 3 is leaking.", "Tank 3 is not leaking.", 0.9)
    rj.judge("Tank 3 is leaking.", "Tank 3 is not leaking.", 0.9)
    assert seen == ["Tank 3 is leaking.", "Tank 3 is not leaking."]  # each text read once
