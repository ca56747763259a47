"""The shared rows as typed records (collective/model/record.py): one way from a row, one
way to a row. A record's fields are its table's columns; a row read before a later
migration added a column takes the default; every record writes every column; and
the bytes signatures cover stay those of the rows already stored."""

from __future__ import annotations

import json

import numpy as np
import pytest

from collective.identity import endorsement_claim
from collective.model import Case, Endorsement, Promotion, TrustEvent
from collective.promotion import rules as promotion_rules
from collective.quarantine import signing
from collective.store import doltlite_url, open_repository

ROW = {"id": "c0ffee", "memory_id_a": "m-a", "memory_id_b": "m-b", "agent_a": "earth-1", "agent_b": "mars-1",
       "similarity": 0.9312, "phase_diff": 3.0, "dispute_count": 2, "status": "pending", "resolution": None,
       "created_at": "2026-03-01T10:00:00.000000Z", "resolved_at": None}
SIGNED = {"opened_by": "earth-1", "opening_signature": "sig-o", "counted_by": "mars-1", "count_signature": "sig-c",
          "verdict_signature": None}
AT = "2026-03-01T10:00:00.000000Z"
PROPOSAL = {"memory_id": "m-1", "origin_agent": "earth-1", "proposed_by": "mars-1", "proposed_at": AT,
            "proposal_signature": "sig-p"}
# each shared table's record, and a row of it as a branch before its last column was added holds it
RECORDS = {"quarantine": (Case, ROW),
           "promotions": (Promotion, PROPOSAL),
           "endorsements": (Endorsement, {"memory_id": "m-1", "agent_id": "earth-2", "signature": "s", "created_at": AT}),
           "trust_events": (TrustEvent, {"id": "t-1", "agent_id": "mars-1", "delta": -0.01, "score_after": 0.49,
                                         "reason": "quarantined", "verifier": "earth-1", "created_at": AT})}


@pytest.fixture(scope="module")
def columns(tmp_path_factory):
    """Each shared table's columns, as a migrated database has them."""
    repo = open_repository(doltlite_url(tmp_path_factory.mktemp("schema") / "a.db"), create=True)
    try:
        repo.migrate(author="t", now="2026-01-01T00:00:00.000000Z")
        return {table: [r["name"] for r in repo.query(f"SELECT name FROM pragma_table_info('{table}')")]
                for table in RECORDS}
    finally:
        repo.close()


@pytest.mark.parametrize("table", sorted(RECORDS))
def test_a_record_is_its_tables_columns_and_writes_every_one(table, columns):
    record, row = RECORDS[table]
    assert sorted(record.columns()) == sorted(columns[table])
    read = record.from_row({**row, "a_later_column": 1})  # one this code does not know yet: left out
    assert sorted(read.to_row()) == sorted(columns[table])
    assert record.from_row(read.to_row()) == read


def test_a_case_read_before_signatures_and_disputes_takes_the_defaults():
    old = Case.from_row(ROW)  # a branch at schema 2: no signatures (003), no dispute (007)
    assert (old.opened_by, old.count_signature, old.verdict_signature, old.dispute) == (None, None, None, None)
    assert old == Case.from_row({**ROW, **SIGNED, "opened_by": None, "opening_signature": None,
                                 "counted_by": None, "count_signature": None, "dispute": None})
    # a case read back and the same case a plan made compare alike, whatever the engine's types
    planned = Case.from_row({**ROW, "similarity": np.float32(0.5), "phase_diff": np.float64(3.0),
                             "dispute_count": np.int64(2)})
    assert planned == Case.from_row({**ROW, "similarity": 0.5}) and type(planned.to_row()["similarity"]) is float
    assert json.dumps(planned.to_row())  # plain values only


def test_the_signed_claims_are_the_bytes_stored_signatures_cover():
    """Fixed bytes, as the dict-based code before the records produced them: a signature
    stored then still verifies now."""
    case = Case.from_row({**ROW, **SIGNED})
    assert signing.opening_claim(case) == (
        b'{"agent_a":"earth-1","agent_b":"mars-1","created_at":"2026-03-01T10:00:00.000000Z","id":"c0ffee",'
        b'"kind":"case.opening","memory_id_a":"m-a","memory_id_b":"m-b","opened_by":"earth-1","phase_diff":3.0,'
        b'"similarity":0.9312}')
    assert signing.count_claim(case) == b'{"counted_by":"mars-1","dispute_count":2,"id":"c0ffee","kind":"case.count"}'
    assert signing.count_claim(Case.from_row(ROW)) == (
        b'{"counted_by":null,"dispute_count":2,"id":"c0ffee","kind":"case.count"}')
    assert signing.verdict_document(case, keep="a", note=None, by="ana", reviewer_key="KEY", agent="earth-2",
                                    at="2026-03-02T09:30:00.000000Z",
                                    dispute={"dispute": "c0ffee", "dispute_keep": "a", "text": None, "memory": None}) == (
        '{"agent_a":"earth-1","agent_b":"mars-1","at":"2026-03-02T09:30:00.000000Z","by":"ana","case_id":"c0ffee",'
        '"dispute":"c0ffee","dispute_keep":"a","keep":"a","kind":"case.verdict","memory":null,"memory_id_a":"m-a",'
        '"memory_id_b":"m-b","note":"","recorded_by":"earth-2","reviewer_key":"KEY","text":null}')


def test_the_promotion_claims_are_the_bytes_stored_signatures_cover():
    proposal = Promotion.from_row(PROPOSAL)
    assert proposal.note is None and proposal.decision is None  # nothing decided yet
    assert promotion_rules.proposal_claim(proposal) == (
        b'{"kind":"promotion.proposal","memory_id":"m-1","note":"","origin_agent":"earth-1",'
        b'"proposed_at":"2026-03-01T10:00:00.000000Z","proposed_by":"mars-1"}')
    assert promotion_rules.decision_document(proposal, approve=True, note="ok", by="ana", reviewer_key="KEY",
                                             agent="mars-1", at="2026-03-02T09:30:00.000000Z") == (
        '{"approve":true,"at":"2026-03-02T09:30:00.000000Z","by":"ana","kind":"promotion.decision",'
        '"memory_id":"m-1","note":"ok","origin_agent":"earth-1","recorded_by":"mars-1","reviewer_key":"KEY"}')
    assert endorsement_claim("m-1", "earth-2", AT) == (
        b'{"agent_id":"earth-2","at":"2026-03-01T10:00:00.000000Z","kind":"memory.endorsement","memory_id":"m-1"}')
