-- Version 1 of the agent database (doltlite / SQLite dialect).
-- Versioned tables are committed to Dolt; tables named local_% are listed in
-- dolt_ignore: per-machine state that must never create a commit. They live
-- in each branch's working set, so SqlRepository.migrate creates them (IF NOT
-- EXISTS) on whichever branch the connection has checked out.

INSERT INTO dolt_ignore (pattern, ignored) VALUES ('local_%', 1);

CREATE TABLE schema_version (
    version     INTEGER PRIMARY KEY,
    applied_at  TEXT NOT NULL
);

CREATE TABLE memories (
    id                    TEXT PRIMARY KEY,
    content               TEXT NOT NULL,
    summary               TEXT NOT NULL,
    vector                BLOB NOT NULL,
    dim                   INTEGER NOT NULL,
    model_version         TEXT NOT NULL,
    content_hash          TEXT NOT NULL,
    amplitude             REAL NOT NULL,
    phase                 REAL NOT NULL,
    stance                TEXT,
    category              TEXT NOT NULL,
    tags                  TEXT NOT NULL DEFAULT '[]',
    layer                 INTEGER NOT NULL DEFAULT 0,
    origin_agent          TEXT NOT NULL,
    sync_version          INTEGER NOT NULL DEFAULT 1,
    merge_history         TEXT NOT NULL DEFAULT '[]',
    last_consolidated_at  TEXT,
    disputed              INTEGER NOT NULL DEFAULT 0,
    hallucinated          INTEGER NOT NULL DEFAULT 0,
    parents               TEXT NOT NULL DEFAULT '[]',
    absorbed_into         TEXT,
    retracted             INTEGER NOT NULL DEFAULT 0,
    signature             TEXT NOT NULL,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);
CREATE INDEX memories_content_hash ON memories (content_hash);
CREATE INDEX memories_origin ON memories (origin_agent);

CREATE TABLE skip_links (
    source_id   TEXT NOT NULL,
    target_id   TEXT NOT NULL,
    link_type   TEXT NOT NULL,
    weight      REAL NOT NULL DEFAULT 1.0,
    created_by  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (source_id, target_id, link_type)
);

CREATE TABLE agents (
    agent_id            TEXT PRIMARY KEY,
    display_name        TEXT,
    public_key          TEXT NOT NULL,
    trust_score         REAL NOT NULL DEFAULT 0.5,
    branch_name         TEXT NOT NULL,
    model_version       TEXT,
    last_synced_commit  TEXT,
    last_sync           TEXT,
    capabilities        TEXT NOT NULL DEFAULT '{}',
    created_at          TEXT NOT NULL
);

CREATE TABLE trust_events (
    id          TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    delta       REAL NOT NULL,
    score_after REAL NOT NULL,
    reason      TEXT NOT NULL,
    evidence    TEXT NOT NULL DEFAULT '{}',
    verifier    TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX trust_events_agent ON trust_events (agent_id);

CREATE TABLE quarantine (
    id             TEXT PRIMARY KEY,
    memory_id_a    TEXT NOT NULL,
    memory_id_b    TEXT NOT NULL,
    agent_a        TEXT NOT NULL,
    agent_b        TEXT NOT NULL,
    similarity     REAL NOT NULL,
    phase_diff     REAL NOT NULL,
    dispute_count  INTEGER NOT NULL DEFAULT 1,
    status         TEXT NOT NULL DEFAULT 'pending',
    resolution     TEXT,
    created_at     TEXT NOT NULL,
    resolved_at    TEXT
);

CREATE TABLE dream_runs (
    id           TEXT PRIMARY KEY,
    agent_id     TEXT NOT NULL,
    branch_name  TEXT NOT NULL,
    status       TEXT NOT NULL,
    stats        TEXT NOT NULL DEFAULT '{}',
    started_at   TEXT NOT NULL,
    finished_at  TEXT
);

CREATE TABLE dream_clusters (
    run_id       TEXT NOT NULL,
    cluster_id   INTEGER NOT NULL,
    memory_ids   TEXT NOT NULL,
    order_param  REAL,
    PRIMARY KEY (run_id, cluster_id)
);

CREATE TABLE prune_hints (
    run_id     TEXT NOT NULL,
    memory_id  TEXT NOT NULL,
    reason     TEXT NOT NULL,
    strength   REAL NOT NULL,
    PRIMARY KEY (run_id, memory_id)
);

CREATE TABLE IF NOT EXISTS local_access (
    memory_id    TEXT PRIMARY KEY,
    count        INTEGER NOT NULL DEFAULT 0,
    last_access  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS local_access_count ON local_access (count);

CREATE TABLE IF NOT EXISTS local_outbox (
    event_id    TEXT PRIMARY KEY,
    subject     TEXT NOT NULL,
    envelope    TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    sent_at     TEXT
);

CREATE TABLE IF NOT EXISTS local_inbox (
    event_id     TEXT PRIMARY KEY,
    subject      TEXT NOT NULL,
    envelope     TEXT NOT NULL,
    received_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS local_state (
    name   TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
