"""Events as data (collective.model.events) and the pull decision (collective.sync.policy): metadata
only, refused when built, the same checks on receipt; each decision says why."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collective.config import Settings, settings_from
from collective.errors import BadInput
from collective.identity import Identity
from collective.model import Case, Memory, events
from collective.model.enums import EventType
from collective.model import words
from collective.model.words import LONGEST_WORD
from collective.runtime import fast
from collective.sync import policy
from collective.sync.events.signing import sign, verify

STORED = {"origin": "earth-1", "category": "knowledge", "amplitude": 0.9, "tags": ["pump"], "summary": "The pump."}


@pytest.mark.parametrize("payload, reason", [
    ({**STORED, "content": "The pump is broken. Full text."}, "content"),
    ({**STORED, "tags": ["pump"], "vector": [0.1] * 384}, "content"),
    ({**STORED, "extra": {"embedding": "AAAA"}}, "content"),
    ({**STORED, "tags": [0.1] * 20}, "content"),
    ({k: v for k, v in STORED.items() if k != "amplitude"}, "missing_field"),
    ({**STORED, "colour": "red"}, "unknown_field"),
    ({**STORED, "amplitude": "high"}, "malformed"),
    ({**STORED, "amplitude": True}, "malformed"),
    ({**STORED, "summary": "x" * 161}, "oversize"),
])
def test_a_bad_payload_is_refused_when_built(payload, reason):
    with pytest.raises(events.EventRefused) as refused:
        events.Draft("memory.stored", "m1", payload)
    assert refused.value.reason == reason and isinstance(refused.value, BadInput)


def test_an_unknown_type_and_an_oversize_envelope_are_refused():
    with pytest.raises(events.EventRefused, match="unknown event type"):
        events.Draft("memory.teleported", "m1", {})
    draft = events.Draft("memory.stored", "m1", {**STORED, "tags": ["t" * 190] * 21})
    with pytest.raises(events.EventRefused) as refused:
        events.Sender("earth-1").stamp(draft)
    assert refused.value.reason == "oversize"


def test_events_name_a_topic_and_carry_the_summary_only_where_a_person_opted_in():
    draft = events.Draft("memory.stored", "m1", {**STORED, "topic": ["pump"]})
    assert "summary" not in events.Sender("earth-1").stamp(draft)["payload"]
    assert events.Sender("earth-1", summary=True).stamp(draft)["payload"]["summary"] == "The pump."
    assert Settings().event_summary is False and settings_from(Settings, {"events": {"summary": True}}).event_summary
    per_agent = settings_from(Settings, {"events": {"summary": True, "summary_off": ["mars-1"]}})
    assert not per_agent.summary_for("mars-1") and per_agent.summary_for("earth-1")


def _memory(text: str, tags: list[str] | None = None) -> Memory:
    return Memory(id="m1", content=text, summary=text[:100], vector=np.ones(4, np.float32), dim=4, model_version="m",
                  content_hash="h", amplitude=0.5, phase=0.0, category="knowledge", origin_agent="earth-1",
                  created_at="t", updated_at="t", tags=tags or [])


@pytest.mark.parametrize("text, tags, topic", [
    ("The vault combination is 4-8-15-16.", [], ["combination"]),
    ("Valve R2-1 on the coolant loop is not open.", [], ["loop"]),
    ("Oxygen levels in the east greenhouse are low.", [], ["oxygen", "levels"]),
    ("Rover C has a fully charged battery.", ["rover", "power"], ["rover", "power"]),  # its subject: no common word
    ("Do not open hatch 3 before 14:00.", ["hatch"], ["open", "hatch"]),
    ("é" * 16384 + " pump", [], []),  # a run of letters longer than any word is none
])
def test_a_memory_event_names_what_its_memory_is_about_not_what_it_says(text, tags, topic):
    (draft,) = events.stored([_memory(text, tags)], [])
    envelope = events.encode({**events.Sender("earth-1").stamp(draft), "signature": "s"})
    assert draft.payload["topic"] == topic
    assert text.encode() not in envelope and b"4-8-15-16" not in envelope and b" not " not in envelope
    with pytest.raises(BadInput, match="events"):
        settings_from(Settings, {"events": {"content": True}})


@pytest.mark.parametrize("text, secret", [
    ("The vault passphrase is falcon-ninety.", {"passphrase", "falcon", "ninety"}),
    ("Override passphrase: falcon-ninety", {"override", "passphrase", "falcon", "ninety"}),
    ("Zircon-7741", {"zircon"}),
    ("Tiger-7741 opens the east airlock.", {"tiger"}),  # a code's word part, however common
    ("The wifi password is tiger.", {"wifi", "password", "tiger"}),
    ("Door code: tiger lily", {"tiger", "lily"}),
    ("ALPHA BRAVO is the launch code.", {"alpha", "bravo"}),
    ("Priya Raman keeps the spare key.", {"priya", "raman"}),
    ("John Mark keeps the spare key.", {"john", "mark"}),  # names that are words too
    ("The safe opens with — tiger", {"tiger"}),
])
def test_an_events_topic_carries_no_word_of_a_secret(text, secret):
    # what the bus shows by default (no summary): no name, code or rare word of the statement
    (draft,) = events.stored([_memory(text)], [])
    envelope = events.encode({**events.Sender("earth-1").stamp(draft), "signature": "s"}).lower()
    assert not secret & set(draft.payload["topic"])
    assert not [word for word in secret if word.encode() in envelope]


def test_a_topics_words_are_common_words_or_the_memorys_own_tags():
    common = words.common_words()
    assert 3000 <= len(common) <= 10000 and not any(w.startswith("#") for w in common)
    assert {"oxygen", "water", "power"} <= common and not {"john", "priya", "falcon", "zircon", "passphrase"} & common


@given(text=st.lists(st.sampled_from(["the", "pump", "Zircon-7741", "falcon", "oxygen", "is", "water", "code:",
                                      "ALPHA", "R2-1", "—", "levels", "tiger", "Priya"]), max_size=12).map(" ".join),
       tags=st.lists(st.sampled_from(["vault", "coolant loop", "R2-1", "pump"]), max_size=3))
def test_any_topic_names_only_common_words_and_tag_words(text, tags):
    named = set(words.topic(text, tags))
    tag_words = {w for tag in tags for w in tag.split()}
    assert len(named) <= words.TOPIC_WORDS and named <= words.common_words() | tag_words


def test_a_signed_envelope_verifies_and_any_change_breaks_it(tmp_path):
    identity = Identity.generate(tmp_path / "k.pem")
    signed = sign(events.Sender("earth-1").stamp(events.Draft("memory.stored", "m1", STORED)), identity)
    assert events.check_envelope(json.loads(events.encode(signed))) == signed
    assert verify(signed, identity.public_key)
    for field, value in [("entity_id", "m2"), ("agent", "mars-1"), ("payload", {**STORED, "amplitude": 1.0})]:
        assert not verify({**signed, field: value}, identity.public_key)
    assert not verify(signed, Identity.generate(tmp_path / "other.pem").public_key)


def test_received_envelopes_are_checked_like_built_ones():
    stamped = {**events.Sender("earth-1").stamp(events.Draft("memory.stored", "m1", STORED)), "signature": "s"}
    assert events.check_envelope(stamped)
    for broken, reason in [({**stamped, "payload": {**STORED, "content": "x"}}, "content"),
                           ({k: v for k, v in stamped.items() if k != "ts"}, "missing_field"),
                           ({**stamped, "secret": 1}, "unknown_field"), ([1, 2], "malformed")]:
        with pytest.raises(events.EventRefused) as refused:
            events.check_envelope(broken)
        assert refused.value.reason == reason


def test_subjects_keep_one_token_per_agent():
    assert events.subject("site", "earth.1", "memory.stored") == "cmem.site.earth~1.memory.stored"
    with pytest.raises(BadInput):
        events.validate_collective("a.b")


def test_each_change_type_has_a_schema_its_builder_meets():
    case = Case(id="c1", memory_id_a="m1", memory_id_b="m2", agent_a="earth-1", agent_b="mars-1", similarity=0.91,
                phase_diff=3.1, created_at="2026-03-01T10:00:00.000000Z", dispute_count=3, status="escalated",
                resolution=json.dumps({"keep": "a", "by": "surgeon"}))
    drafts = events.merged("mars-1", "h" * 40, {"new": 1}, [case], {}, receiver="earth-1")
    assert [d.event_type for d in drafts] == ["merge.proposed", "merge.conflict", "memory.disputed",
                                              "quarantine.escalated"]
    assert events.merged("mars-1", "h", {}, [case], {"c1": case}, receiver="earth-1")[1:] == []
    assert events.resolved(case)[0].payload["keep"] == "a"
    assert events.pushed("earth-1/working", "h", "origin")[0].payload["remote"] == "origin"


def test_a_dream_run_tells_its_start_each_synthesis_and_its_end_as_metadata():
    synthesis = Memory(id="s1", content="Pumps 1 and 2 run; logs A and B agree at length", summary="Pumps 1 and 2 run",
                       vector=np.ones(4, np.float32), dim=4, model_version="m", content_hash="h", amplitude=0.3,
                       phase=0.0, category="knowledge", origin_agent="earth-1", created_at="t", updated_at="t",
                       tags=["dream"], hallucinated=True, parents=["p1", "p2", "p3"])
    run = {"run": "20261201-141100", "branch": "earth-1/dream/20261201-141100", "mode": "full", "jobs": 2,
           "counts": {"selected": 8, "hallucinated": 1}, "stability": {"before": 0.41, "after": 0.43},
           "synthesised": [{"id": synthesis.id}], "coaccess_folded": {"p1": [2, 1.02]}}
    drafts = events.dreamed(run, [synthesis], status="merged", started_at="2026-12-01T14:11:00Z", seconds=1.5)
    assert [(d.event_type, d.entity_id) for d in drafts] == [
        ("dream.started", run["branch"]), ("dream.hallucination", synthesis.id), ("dream.completed", run["branch"])]
    assert drafts[1].payload == {"origin": "earth-1", "category": "knowledge", "amplitude": 0.3, "parent_count": 3,
                                 "run": run["run"], "tags": ["dream"], "topic": ["run", "dream"],
                                 "summary": synthesis.summary}
    assert drafts[2].payload["counts"] == run["counts"] and drafts[2].payload["stability_after"] == 0.43
    assert "summary" not in events.Sender("earth-1").stamp(drafts[1])["payload"]
    assert events.Sender("earth-1", summary=True).stamp(drafts[1])["payload"]["summary"] == synthesis.summary
    for draft in drafts:
        stamped = {**events.Sender("earth-1").stamp(draft), "signature": "s"}
        assert events.check_envelope(json.loads(events.encode(stamped))) == stamped
    with pytest.raises(events.EventRefused) as refused:
        events.Draft("dream.hallucination", synthesis.id, {**drafts[1].payload, "content": synthesis.content})
    assert refused.value.reason == "content"


# --- the pull decision ----------------------------------------------------------------

def _decide(amplitude=0.5, trust=0.5, tags=(), event_type="memory.stored", **kwargs):
    settings = kwargs.pop("settings", policy.PolicySettings())
    payload = {**STORED, "amplitude": amplitude, "tags": list(tags)}
    return policy.decide(event_type, payload, trust=trust, settings=settings, **kwargs)


def test_decisions_and_their_reasons():
    assert _decide(0.9, 0.2).action == "skip" and "low trust" in _decide(0.9, 0.2).reason
    assert _decide(0.9, 0.5).action == "now" and "0.45" in _decide(0.9, 0.5).reason
    assert _decide(0.4, 0.5).action == "queue"
    assert _decide(0.2, 0.5).action == "skip"
    focused = policy.PolicySettings(focus_tags=("pump",), focus=("coolant",))
    assert _decide(0.2, 0.5, tags=["pump"], settings=focused).action == "now"
    near = _decide(0.2, 0.5, settings=focused, focus=lambda s: ("coolant", 0.8))
    assert near.action == "now" and "coolant" in near.reason
    assert _decide(event_type="sync.pushed", waiting=2).action == "now"
    assert _decide(event_type="sync.pushed").action == "skip"
    assert _decide(event_type="quarantine.resolved").action == "queue"
    assert _decide(event_type="agent.status").action == "skip"


def test_a_peers_synthesis_weighs_half_and_waits_for_the_window_with_its_dream():
    assert _decide(0.9, 0.5, event_type="dream.hallucination").action == "queue"  # 0.45 x 0.5 share: queue
    assert _decide(0.5, 0.5, event_type="dream.hallucination").action == "skip"   # 0.125 < 0.15, stored: queue
    assert _decide(0.5, 0.5).action == "queue"
    focused = policy.PolicySettings(focus_tags=("pump",))
    in_focus = _decide(0.2, 0.5, tags=["pump"], event_type="dream.hallucination", settings=focused)
    assert in_focus.action == "queue" and "pump" in in_focus.reason and "window" in in_focus.reason
    assert _decide(0.9, 0.2, event_type="dream.hallucination").action == "skip"
    assert _decide(event_type="dream.completed").action == "queue"
    assert _decide(event_type="dream.started").action == "skip"


@pytest.mark.parametrize("event_type", list(EventType))
def test_every_event_type_has_a_schema_and_a_rule_of_the_policy(event_type):
    """Event types are one enum: a new one without a schema or a rule fails here."""
    assert event_type in events.SCHEMAS and event_type in events.EVENT_TYPES
    assert _decide(event_type=event_type).action in ("now", "queue", "skip")
    assert _decide(event_type="memory.forgotten").reason == "'memory.forgotten' is no event type this version knows"


@given(st.floats(0, 2), st.floats(0.1, 1), st.floats(0.1, 1))
def test_more_amplitude_or_trust_never_lowers_the_decision(amplitude, trust, more):
    rank = {"skip": 0, "queue": 1, "now": 2}
    base = rank[_decide(amplitude, trust).action]
    assert rank[_decide(amplitude + more, trust).action] >= base
    assert rank[_decide(amplitude, min(1.0, trust + more)).action] >= base


def test_policy_settings_are_checked():
    listen = settings_from(policy.PolicySettings, {"listen": {"pull_now": 0.7, "focus": ["pump"]}})
    assert listen.focus == ("pump",) and listen.pull_now == 0.7
    for bad, problem in (({"pull_now": "high"}, "pull_now must be a finite number"), ({"focus": "pump"}, "focus must be a list"),
                         ({"eagerness": 1}, "has unknown setting(s) eagerness"), ({"queue": 11}, "queue must be from 0 to 10")):
        with pytest.raises(BadInput) as refused:
            settings_from(policy.PolicySettings, {"listen": bad})
        assert str(refused.value).startswith(f"cmem.toml: [listen] {problem}")


def test_the_publishers_signed_message_is_the_signed_envelope(tmp_path):
    from collective.sync.events.signing import signed_message
    identity = Identity.generate(tmp_path / "k.pem")
    envelope = events.Sender("earth-1").stamp(events.Draft("memory.stored", "m1", STORED))
    message = json.loads(signed_message(events.canonical(envelope).decode(), identity))
    assert message == sign(envelope, identity) and verify(message, identity.public_key)


@pytest.mark.parametrize("events_section", [{"outbox_limit": 0}, {"outbox_limit": "many"}, {"enabled": "no"},
                                            {"summary": 1}, {"loud": True}])
def test_bad_events_settings_are_one_line_errors(events_section):
    with pytest.raises(BadInput) as bad:
        settings_from(Settings, {"events": events_section})
    assert "\n" not in str(bad.value) and "[events]" in str(bad.value)



class Text(str):
    """Text, but not a str itself: the narrow check leaves it to the full one."""


_EDGES = {"origin": ["earth-1", "x" * 200, "x" * 201, None, 5, Text("earth-1")],
          "category": ["x" * 200, "x" * 201, Text("knowledge")],
          "summary": ["", "x" * 160, "x" * 161, None, 3, Text("The pump.")],
          "stance": [None, "", "x" * 200, "x" * 201],
          "tags": [[], ["x" * 200], ["x" * 201], ["a", 1], [None], [1.0] * 9, ["a"] * 30, [Text("a")]]}
_TEXTS = st.one_of(st.text(max_size=3), st.text(min_size=155, max_size=205), st.sampled_from(["x" * 160, "x" * 161]))
_ODD = st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.just(True), st.just(["a"]))


def _memory_event_outcome(boosted: bool, **fields) -> tuple:
    """What memory_event makes of a memory with these fields, and what it makes when every
    payload goes through check_payload."""
    memory = Memory(**{"id": "m1", "content": "The pump on deck 3 is off.", "summary": "The pump.",
                       "vector": np.ones(4, np.float32), "dim": 4, "model_version": "m", "content_hash": "h",
                       "amplitude": 0.5, "phase": 0.0, "category": "knowledge", "origin_agent": "earth-1",
                       "created_at": "t", "updated_at": "t", **fields})
    event_type = EventType.MEMORY_BOOSTED if boosted else EventType.MEMORY_STORED

    def outcome() -> tuple:
        try:
            draft = events.memory_event(event_type, memory)
        except events.EventRefused as refused:
            return ("refused", refused.reason, str(refused))
        return ("built", draft)

    narrow = outcome()
    fits = events._memory_payload_fits
    events._memory_payload_fits = lambda payload: False
    try:
        return narrow, outcome()
    finally:
        events._memory_payload_fits = fits


@pytest.mark.parametrize("boosted", [False, True], ids=["stored", "boosted"])
@pytest.mark.parametrize("name, value", [(name, value) for name, values in _EDGES.items() for value in values])
def test_a_memory_event_is_built_or_refused_as_the_full_check_has_it(name, value, boosted):
    narrow, full = _memory_event_outcome(boosted, **{"origin_agent" if name == "origin" else name: value})
    assert narrow == full


@settings(max_examples=300)
@given(origin=st.one_of(_TEXTS, _ODD), category=_TEXTS, summary=st.one_of(_TEXTS, _ODD),
       stance=st.one_of(st.none(), _TEXTS), tags=st.lists(st.one_of(_TEXTS, _ODD), max_size=12),
       boosted=st.booleans())
def test_any_memory_event_is_built_or_refused_as_the_full_check_has_it(origin, category, summary, stance, tags,
                                                                       boosted):
    narrow, full = _memory_event_outcome(boosted, origin_agent=origin, category=category, summary=summary,
                                         stance=stance, tags=tags)
    assert narrow == full


def test_a_topic_word_is_short_text_as_the_narrow_check_takes_it():
    assert LONGEST_WORD <= events.MAX_TEXT


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=200)
@given(value=_JSON, ascii_only=st.booleans())
def test_the_reused_json_encoder_writes_what_json_dumps_writes(value, ascii_only):
    options = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": ascii_only}
    assert fast.json_encoding(json.JSONEncoder(**options))(value) == json.dumps(value, **options)


@given(payload=st.dictionaries(st.sampled_from(["origin", "summary", "tags", "counts", "é"]), _JSON, max_size=5),
       summary=st.booleans())
def test_a_stamped_envelopes_bytes_are_its_canonical_json(payload, summary):
    draft = events.Draft.checked("memory.stored", "m\u00e9\U0001f600", payload)  # any payload: only bytes matter
    ((envelope, signed),) = events.Sender("earth-1", summary=summary).stamp_all([draft])
    assert signed == json.dumps({k: envelope[k] for k in events.ENVELOPE_FIELDS}, sort_keys=True,
                                separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert ("summary" in envelope["payload"]) == (summary and "summary" in payload)
