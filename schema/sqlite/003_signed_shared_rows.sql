-- Signed shared rows, authorised reviewers and key rotation.
-- A case carries three signatures, each over the part its signer vouches for:
-- the opening (pair, agents, measures, time) by the agent that opened it, the
-- dispute count by the agent that last raised it, and the verdict (the
-- resolution document itself) by the reviewer whose key it names.

ALTER TABLE quarantine ADD COLUMN opened_by TEXT;
ALTER TABLE quarantine ADD COLUMN opening_signature TEXT;
ALTER TABLE quarantine ADD COLUMN counted_by TEXT;
ALTER TABLE quarantine ADD COLUMN count_signature TEXT;
ALTER TABLE quarantine ADD COLUMN verdict_signature TEXT;

-- The people whose verdicts this agent honours (its operator's decision).
CREATE TABLE reviewers (
    name        TEXT PRIMARY KEY,
    public_key  TEXT NOT NULL,
    added_at    TEXT NOT NULL
);

-- Verdicts whose effects this agent applied, once each.
CREATE TABLE applied_verdicts (
    case_id       TEXT PRIMARY KEY,
    reviewer_key  TEXT NOT NULL,
    applied_at    TEXT NOT NULL
);

-- Endorsements of a memory for main, each signed by the endorsing agent.
CREATE TABLE endorsements (
    memory_id   TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    signature   TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (memory_id, agent_id)
);

-- This agent's key rotations, published on its branch: each new key signed by the old.
CREATE TABLE key_rotations (
    agent_id    TEXT NOT NULL,
    old_key     TEXT NOT NULL,
    new_key     TEXT NOT NULL,
    signature   TEXT NOT NULL,
    rotated_at  TEXT NOT NULL,
    PRIMARY KEY (agent_id, new_key)
);

-- Keys a peer showed without a rotation signed by the key held for it: refused
-- until a person accepts or rejects them.
CREATE TABLE key_changes (
    agent_id    TEXT PRIMARY KEY,
    new_key     TEXT NOT NULL,
    status      TEXT NOT NULL,
    seen_at     TEXT NOT NULL
);
