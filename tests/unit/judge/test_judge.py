"""The pairwise judge: slot comparers, the plug-in wrapper, and the labelled sets."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collective.embedders import EmbedderUnavailable, HashEmbedder
from collective.core import wave
from collective.model.enums import Relation
from collective.judge import (
    CANDIDATE_FLOOR,
    RELATIONS,
    CallbackJudge,
    Judge,
    JudgeOutputError,
    LearnedJudge,
    RuleJudge,
    Verdict,
    judge_texts,
)

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"
SAME_TOPIC = 0.9  # a cosine well above every gate: the slots alone decide


@pytest.fixture(scope="module")
def rj() -> RuleJudge:
    return RuleJudge()


def verdict(rj: RuleJudge, a: str, b: str, sim: float = SAME_TOPIC) -> Verdict:
    v = rj.judge(a, b, sim)
    # the rule judge is symmetric
    assert rj.judge(b, a, sim).relation == v.relation
    return v


# ---------------------------------------------------------------- units ---


def test_pressure_units_convert(rj):
    v = verdict(rj, "Cabin pressure in the hab is 101.3 kPa.", "The hab's cabin pressure is 1 atm.")
    assert v.relation == "constructive"
    assert any(m.startswith("number:") for m in v.matched)
    v = verdict(rj, "Cabin pressure in module B is 101 kPa.", "Cabin pressure in module B is 87 kPa.")
    assert v.relation == "destructive"
    assert any(c.startswith("number:") for c in v.clashed)


@pytest.mark.parametrize(
    "a, b",
    [
        ("Outside it was -40 °F at dawn.", "Outside it was -40 °C at dawn."),
        ("Chen's body temperature is 38.5 °C.", "Chen is running a temperature of 101.3 °F."),
        ("Suit pressure for EVA is 29.6 kPa.", "EVA suit pressure is 4.3 psi."),
        ("Rover 5's battery holds 12 kWh.", "The battery on rover 5 stores 12,000 Wh."),
        ("The pump moves 30 litres per minute.", "Pump flow rate is 0.5 L/s."),
        ("The spare O2 supply lasts 72 hours.", "The spare oxygen supply lasts three days."),
        ("Laila's dose is 2 x 250 mg of paracetamol.", "Laila takes 500 mg of paracetamol."),
    ],
)
def test_unit_conversions_agree(rj, a, b):
    assert verdict(rj, a, b).relation == "constructive"


def test_counts_and_spelled_numbers(rj):
    assert verdict(rj, "Four crew members are on EVA today.", "Two crew members are on EVA today.").relation == "destructive"
    assert verdict(rj, "Three of the four heaters work.", "All four heaters work.").relation == "destructive"
    assert verdict(rj, "The regulator is set to twelve kPa.", "Regulator setting: 12 kilopascals.").relation == "constructive"


def test_quantity_extraction(rj):
    q = rj.analyse("Tank 3 holds about 200 litres of water.").quantities
    assert len(q) == 1 and q[0].dim == "volume"
    assert q[0].lo < 0.2 < q[0].hi
    assert rj.analyse("Rover 2 cannot climb slopes steeper than 20 degrees.").quantities[0].hi == math.inf


# ---------------------------------------------------------------- times ---


@pytest.mark.parametrize(
    "a, b",
    [
        ("The EVA starts at 14:00.", "The EVA begins at 2 pm."),
        ("The comms window opens at 0900 hours.", "The comms window opens at 9 am."),
        ("The backup job runs at midnight.", "The backup job is scheduled for 00:00."),
        ("The briefing on sol 412 is at 07:15.", "The sol 412 briefing is at 7:15 in the morning."),
    ],
)
def test_time_formats_agree(rj, a, b):
    v = verdict(rj, a, b)
    assert v.relation == "constructive"
    assert any(m.startswith("time:") for m in v.matched)


def test_times_clash(rj):
    v = verdict(rj, "The EVA starts at 14:00.", "The EVA starts at 09:00.")
    assert v.relation == "destructive" and any(c.startswith("time:") for c in v.clashed)


def test_a_temperature_is_not_a_clock_time(rj):
    assert not rj.analyse("The kiln fires at 1100 °C.").times


# ----------------------------------------------------------------- days ---


def test_weekday_differs_at_same_hour(rj):
    v = verdict(rj, "The EVA is scheduled for Sunday at 10:00.", "The EVA is scheduled for Wednesday at 10:00.")
    assert v.relation == "destructive"
    assert any(c.startswith("day:") for c in v.clashed)
    assert any(m.startswith("time:") for m in v.matched)


def test_sols_and_dates(rj):
    assert verdict(rj, "The cargo lander arrives on sol 415.", "The cargo lander arrives on sol 421.").relation == "destructive"
    assert verdict(rj, "The release is planned for March 3.", "The release is planned for 3 March.").relation == "constructive"
    assert verdict(rj, "Inspection is on the 5th of April.", "Inspection is on the 19th of April.").relation == "destructive"


# ------------------------------------------------------------- polarity ---


def test_negation(rj):
    v = verdict(rj, "The reactor is safe.", "The reactor is not safe.")
    assert v.relation == "destructive"
    assert verdict(rj, "Chen completed the EVA checklist.", "Chen did not complete the EVA checklist.").relation == "destructive"


@pytest.mark.parametrize(
    "a, b",
    [
        ("No leaks in module C.", "Module C has no leaks."),
        ("The hatch to node 2 is not unlocked.", "The node 2 hatch is locked."),
        ("The reactor is safe.", "The reactor poses no danger."),
        ("Never run the kiln without the vent fan.", "The kiln must not be operated without its vent fan."),
    ],
)
def test_double_negation_and_negated_antonyms_agree(rj, a, b):
    assert verdict(rj, a, b).relation == "constructive"


@pytest.mark.parametrize(
    "a, b",
    [
        ("The hatch to module B is open.", "The hatch to module B is closed."),
        ("The water recycler is running.", "The water recycler has been shut down."),
        ("Chen tested positive for the virus.", "Chen tested negative for the virus."),
        ("Laila's blood test came back normal.", "Laila's blood test came back abnormal."),
        ("Rover 5 is charging in the garage.", "Rover 5 is out on survey at the north ridge."),
    ],
)
def test_antonyms_and_state_changes_clash(rj, a, b):
    v = verdict(rj, a, b)
    assert v.relation == "destructive"
    assert any(c.startswith("state:") for c in v.clashed)


def test_retraction(rj):
    v = verdict(rj, "Tank 3 is leaking.", "Disregard my earlier note about tank 3 leaking; it was condensation.")
    assert v.relation == "destructive" and "retraction" in v.clashed
    assert not rj.analyse("The drill arm was retracted after the core was taken.").retracts
    assert not rj.analyse("Nothing is wrong with the greenhouse pump.").retracts


def test_hedged_versus_definite(rj):
    v = verdict(rj, "The pump in module C is failing.", "The pump in module C might be failing.")
    assert v.relation == "partial"
    assert v.phase_difference == pytest.approx(math.pi / 2)
    # "May" the month is not a hedge
    assert not rj.analyse("The scrubber is due for service in May.").hedged


def test_qualified_claim(rj):
    assert verdict(rj, "Power is restored to the hab.", "Power is restored to the hab, except module D.").relation == "partial"
    assert verdict(rj, "The scrubber works.", "The scrubber works at reduced capacity.").relation == "partial"


# ----------------------------------------------- objects, places, people ---


@pytest.mark.parametrize(
    "a, b",
    [
        ("Rover 5's battery is at 80%.", "Rover 3's battery is at 80%."),
        ("Airlock 1 is pressurised.", "Airlock 2 is depressurised."),
        ("The east solar array produces 4.2 kW.", "The west solar array produces 3.9 kW."),
        ("Chen's blood pressure is 120 over 80.", "Patel's blood pressure is 120 over 80."),
        ("The telemetry service was restarted at 03:10.", "The scheduler service was restarted at 03:10."),
        ("The staging database is running out of disk space.", "The production database is running out of disk space."),
        ("Greta has a cold.", "Ito has a cold."),
    ],
)
def test_different_objects_with_shared_vocabulary(rj, a, b):
    v = verdict(rj, a, b)
    assert v.relation == "independent", v.reason
    assert v.phase_difference is None


def test_places_clash(rj):
    v = verdict(rj, "The spare O2 canisters are stored in module B.", "The spare O2 canisters are stored in module D.")
    assert v.relation == "destructive" and any(c.startswith("place:") for c in v.clashed)
    assert verdict(rj, "The first aid kit is in the galley.", "The first aid kit is in the airlock.").relation == "destructive"


def test_people_and_roles_clash(rj):
    v = verdict(rj, "Dr. Okafor is the on-call medic tonight.", "Dr. Lindqvist is the on-call medic tonight.")
    assert v.relation == "destructive" and any(c.startswith("person:") for c in v.clashed)
    assert verdict(rj, "The commander signs off on every EVA.", "The flight surgeon signs off on every EVA.").relation == "destructive"
    # the same person as owner and another as the one who acts
    assert verdict(rj, "Dr. Okafor performed Chen's dental check.", "Dr. Lindqvist performed Chen's dental check.").relation == "destructive"


def test_same_object_other_attribute(rj):
    v = rj.judge("Rover 5's battery is at 80%.", "Rover 5 has a cracked left wheel.", 0.45)
    assert v.relation == "partial"
    assert "object:rover 5" in v.matched
    v = rj.judge("The greenhouse temperature is 22 °C.", "The greenhouse humidity is 70%.", 0.58)
    assert v.relation == "partial"


def test_elaboration_agrees(rj):
    v = verdict(rj, "EVA suits are stored in the airlock locker.", "EVA suits are stored in the airlock locker, helmets on the top shelf.")
    assert v.relation == "constructive"


# ----------------------------------------------------- verdict and gate ---


def test_floor_and_bad_similarity(rj):
    assert rj.judge("The reactor is safe.", "The reactor is not safe.", CANDIDATE_FLOOR - 0.01).relation == "independent"
    assert rj.judge("The reactor is safe.", "The reactor is not safe.", float("nan")).relation == "independent"


def test_verdict_shape(rj):
    v = rj.judge("The EVA starts at 14:00.", "The EVA starts at 09:00.", 0.93)
    assert v.relation in RELATIONS
    assert 0.0 <= v.confidence <= 1.0
    assert v.reason and "\n" not in v.reason
    assert isinstance(v.matched, tuple) and isinstance(v.clashed, tuple)
    assert v.phase_difference == pytest.approx(math.pi)
    assert Verdict("constructive", 1.0, "x").phase_difference == 0.0
    d = v.to_dict()
    assert d["relation"] == "destructive" and d["clashed"] == list(v.clashed)


def test_analyse_is_cached(rj):
    assert rj.analyse("Tank 7 contains no water.") is rj.analyse("Tank 7 contains no water.")


def test_the_rule_judge_is_a_judge_that_answers_below_its_floor_without_reading():
    rj = RuleJudge()
    assert isinstance(rj, Judge)
    assert rj.candidate_floor == CANDIDATE_FLOOR
    safe, unsafe = "The reactor is safe.", "The reactor is not safe."
    assert rj.judge(safe, unsafe, CANDIDATE_FLOOR).relation == "destructive"
    v = rj.judge(safe, unsafe, CANDIDATE_FLOOR - 0.01)
    assert v.relation == "independent" and "similarity is 0.29, below the floor of 0.30" in v.reason and v.phase_difference is None
    raised = RuleJudge(floor=0.5)
    assert raised.candidate_floor == 0.5
    assert raised.judge(safe, unsafe, 0.45).relation == "independent"
    assert raised.judge(safe, unsafe, 0.5).relation == "destructive"


def test_relations_keep_the_order_reports_list_them_in():
    assert RELATIONS == ("constructive", "destructive", "partial", "independent")
    assert RELATIONS == wave.RELATIONS == tuple(Relation)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=120), st.text(max_size=120), st.floats(-1, 1))
def test_any_text_gets_a_valid_verdict(a, b, sim):
    v = RuleJudge().judge(a, b, sim)
    assert v.relation in RELATIONS and 0.0 <= v.confidence <= 1.0 and v.reason


# ---------------------------------------------------------- plug-in ---


def test_callback_judge_wraps_a_callable():
    calls = []

    def fake_nli(a, b, sim):
        calls.append((a, b, sim))
        return ("destructive", 0.9, "the model says they contradict")

    cj = CallbackJudge(fake_nli, floor=0.3)
    v = cj.judge("x is safe", "x is not safe", 0.97)
    assert v == Verdict("destructive", 0.9, "the model says they contradict")
    assert calls == [("x is safe", "x is not safe", 0.97)]
    # below the floor the callable is not asked
    assert cj.judge("a", "b", 0.1).relation == "independent"
    assert len(calls) == 1


@pytest.mark.parametrize(
    "output",
    [
        ("contradiction", 0.9, "bad relation"),
        ("destructive", 1.5, "confidence too high"),
        ("destructive", -0.1, "confidence negative"),
        ("destructive", float("nan"), "confidence NaN"),
        ("destructive", True, "confidence is a bool"),
        ("destructive", "0.9", "confidence is a string"),
        ("destructive", 0.9, ""),
        ("destructive", 0.9, None),
        ("destructive", 0.9),
        "destructive",
        None,
    ],
)
def test_callback_judge_validates_output(output):
    cj = CallbackJudge(lambda a, b, s: output, name="nli")
    with pytest.raises(JudgeOutputError) as raised:
        cj.judge("a", "b", 0.8)
    message = str(raised.value)
    assert message.startswith("judge nli ") and "\n" not in message


def test_a_bad_relation_is_named_with_the_ones_expected():
    cj = CallbackJudge(lambda a, b, s: ("contradiction", 0.9, "x"), name="nli")
    with pytest.raises(JudgeOutputError, match="returned relation 'contradiction'; expected one of "
                                               "constructive, destructive, partial, independent"):
        cj.judge("a", "b", 0.8)


def test_a_long_bad_output_makes_a_short_one_line_message():
    cj = CallbackJudge(lambda a, b, s: "the model rambled\n" * 100)
    with pytest.raises(JudgeOutputError) as raised:
        cj.judge("a", "b", 0.8)
    assert "\n" not in str(raised.value) and len(str(raised.value)) < 200


def test_judge_texts_with_a_given_embedder():
    v = judge_texts("Tank 3 is leaking.", "Tank 3 is leaking.", embedder=HashEmbedder())
    assert v.relation == "constructive"


# ------------------------------------------------------ labelled sets ---


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def embedder():
    try:
        from collective.embedders import default_embedder

        return default_embedder()
    except EmbedderUnavailable as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"default embedder unavailable: {e}")


@pytest.fixture(scope="session")
def cosines(embedder):
    cache: dict[str, list[float]] = {}

    def get(name: str) -> list[float]:
        if name not in cache:
            rows = _load(name)
            va = embedder.embed([r["a"] for r in rows])
            vb = embedder.embed([r["b"] for r in rows])
            cache[name] = [float(x) for x in (va * vb).sum(axis=1)]
        return cache[name]

    return get


def _metrics(name: str, sims: list[float], judge_class=RuleJudge) -> dict:
    rows = _load(name)
    judge = judge_class()
    preds = [judge.judge(r["a"], r["b"], s).relation for r, s in zip(rows, sims)]
    labels = [r["label"] for r in rows]
    tp = sum(p == t == "destructive" for p, t in zip(preds, labels))
    return {
        "accuracy": sum(p == t for p, t in zip(preds, labels)) / len(rows),
        "destructive_recall": tp / labels.count("destructive"),
        "destructive_precision": tp / max(1, preds.count("destructive")),
    }


def test_dev_set_is_well_formed():
    rows = _load("judge_dev.jsonl")
    assert len(rows) >= 300
    assert {r["label"] for r in rows} == set(RELATIONS)
    kinds = {(r["label"], r["kind"]) for r in rows}
    assert len(kinds) >= 19
    held = _load("judge_holdout.jsonl")
    assert len(held) >= 120
    dev_texts = {r["a"] for r in rows} | {r["b"] for r in rows}
    assert not dev_texts & ({r["a"] for r in held} | {r["b"] for r in held})
    generated = _load("judge_dev_gen.jsonl")
    assert len(generated) >= 1500 and all(r["topic"] for r in generated)
    assert {(r["label"], r["kind"]) for r in generated} == kinds
    # the blind set is checked for form only: it is scored once, by scripts/eval_judge.py
    blind = _load("judge_blind.jsonl")
    assert len(blind) >= 300 and {(r["label"], r["kind"]) for r in blind} == kinds
    blind_texts = {r["a"].lower() for r in blind} | {r["b"].lower() for r in blind}
    seen = dev_texts | {r["a"] for r in held} | {r["b"] for r in held} | {r["a"] for r in generated} | {r["b"] for r in generated}
    assert not blind_texts & {t.lower() for t in seen}


@pytest.mark.parametrize("judge_class", [RuleJudge, LearnedJudge])
def test_dev_set_targets(cosines, judge_class):
    m = _metrics("judge_dev.jsonl", cosines("judge_dev.jsonl"), judge_class)
    assert m["accuracy"] >= 0.90, m
    assert m["destructive_recall"] >= 0.90, m
    assert m["destructive_precision"] >= 0.90, m


@pytest.mark.parametrize("judge_class", [RuleJudge, LearnedJudge])
def test_holdout_does_not_regress(cosines, judge_class):
    # A guard only: never tune the judge on this file (tests/data/README.md).
    m = _metrics("judge_holdout.jsonl", cosines("judge_holdout.jsonl"), judge_class)
    assert m["accuracy"] >= 0.85, m
    assert m["destructive_recall"] >= 0.85, m
    assert m["destructive_precision"] >= 0.85, m


# ------------------------------------------------------- eval script ---

SCRIPT = ROOT / "scripts" / "eval_judge.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "content, needle",
    [
        (None, "no such file"),
        ("{not json\n", "not JSON"),
        ('{"a": "x", "b": "y"}\n', "label"),
        ('{"a": "x", "b": "y", "label": "agree"}\n', "label"),
        ('["a", "b"]\n', "object"),
        ("", "no pairs"),
    ],
)
def test_eval_script_rejects_bad_files(tmp_path, content, needle):
    path = tmp_path / "pairs.jsonl"
    if content is not None:
        path.write_text(content)
    r = _run(str(path))
    assert r.returncode == 2
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_eval_script_json(tmp_path, embedder):
    path = tmp_path / "pairs.jsonl"
    rows = [
        {"a": "The reactor is safe.", "b": "The reactor is not safe.", "label": "destructive", "kind": "negation"},
        {"a": "The EVA starts at 14:00.", "b": "The EVA begins at 2 pm.", "label": "constructive"},
        {"a": "Tank 3 is leaking.", "b": "Chen sprained her ankle.", "label": "independent", "kind": "something new"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    r = _run(str(path), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["n"] == 3
    assert out["judge_class"] == "CascadeJudge"
    for name in ("judge", "learned", "rules", "baseline"):
        res = out[name]
        assert set(res["per_relation"]) == set(RELATIONS)
        assert set(res["confusion"]) == set(RELATIONS)
        assert "independent/something new" in res["per_kind"]
        assert "constructive/(none)" in res["per_kind"]
    assert out["judge"]["accuracy"] == 1.0
    assert out["judge"]["wrongly_constructive"]["destructive"] == 0.0
    for name in ("cascade", "learned", "rules"):
        assert out["speed"][name]["judge_pairs_per_s"] > 0
    assert out["speed"]["cascade"]["encoder_pairs_per_s"] > 0 and out["speed"]["cascade"]["encoder_read"] >= 1
