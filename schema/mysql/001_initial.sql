-- Version 1 of the agent database (Dolt sql-server / MySQL dialect).
-- Versioned tables are committed to Dolt; tables named local_% are listed in
-- dolt_ignore: per-machine state that must never create a commit. They live
-- in each branch's working set, so SqlRepository.migrate creates them (IF NOT
-- EXISTS) on whichever branch the connection has checked out.

INSERT INTO dolt_ignore (pattern, ignored) VALUES ('local_%', 1);

CREATE TABLE schema_version (
    version     INTEGER PRIMARY KEY,
    applied_at  VARCHAR(32) NOT NULL
);

CREATE TABLE memories (
    id                    VARCHAR(64) PRIMARY KEY,
    content               LONGTEXT NOT NULL,
    summary               TEXT NOT NULL,
    `vector`              LONGBLOB NOT NULL,
    dim                   INTEGER NOT NULL,
    model_version         VARCHAR(255) NOT NULL,
    content_hash          VARCHAR(255) NOT NULL,
    amplitude             DOUBLE NOT NULL,
    phase                 DOUBLE NOT NULL,
    stance                VARCHAR(255),
    category              VARCHAR(255) NOT NULL,
    tags                  TEXT NOT NULL DEFAULT ('[]'),
    layer                 INTEGER NOT NULL DEFAULT 0,
    origin_agent          VARCHAR(255) NOT NULL,
    sync_version          INTEGER NOT NULL DEFAULT 1,
    merge_history         TEXT NOT NULL DEFAULT ('[]'),
    last_consolidated_at  VARCHAR(32),
    disputed              INTEGER NOT NULL DEFAULT 0,
    hallucinated          INTEGER NOT NULL DEFAULT 0,
    parents               TEXT NOT NULL DEFAULT ('[]'),
    absorbed_into         VARCHAR(255),
    retracted             INTEGER NOT NULL DEFAULT 0,
    signature             TEXT NOT NULL,
    created_at            VARCHAR(32) NOT NULL,
    updated_at            VARCHAR(32) NOT NULL
);
CREATE INDEX memories_content_hash ON memories (content_hash);
CREATE INDEX memories_origin ON memories (origin_agent);

CREATE TABLE skip_links (
    source_id   VARCHAR(255) NOT NULL,
    target_id   VARCHAR(255) NOT NULL,
    link_type   VARCHAR(255) NOT NULL,
    weight      DOUBLE NOT NULL DEFAULT 1.0,
    created_by  VARCHAR(255) NOT NULL,
    created_at  VARCHAR(32) NOT NULL,
    PRIMARY KEY (source_id, target_id, link_type)
);

CREATE TABLE agents (
    agent_id            VARCHAR(64) PRIMARY KEY,
    display_name        TEXT,
    public_key          TEXT NOT NULL,
    trust_score         DOUBLE NOT NULL DEFAULT 0.5,
    branch_name         VARCHAR(255) NOT NULL,
    model_version       VARCHAR(255),
    last_synced_commit  TEXT,
    last_sync           VARCHAR(32),
    capabilities        TEXT NOT NULL DEFAULT ('{}'),
    created_at          VARCHAR(32) NOT NULL
);

CREATE TABLE trust_events (
    id          VARCHAR(64) PRIMARY KEY,
    agent_id    VARCHAR(255) NOT NULL,
    delta       DOUBLE NOT NULL,
    score_after DOUBLE NOT NULL,
    reason      VARCHAR(255) NOT NULL,
    evidence    TEXT NOT NULL DEFAULT ('{}'),
    verifier    VARCHAR(255) NOT NULL,
    created_at  VARCHAR(32) NOT NULL
);
CREATE INDEX trust_events_agent ON trust_events (agent_id);

CREATE TABLE quarantine (
    id             VARCHAR(64) PRIMARY KEY,
    memory_id_a    VARCHAR(255) NOT NULL,
    memory_id_b    VARCHAR(255) NOT NULL,
    agent_a        VARCHAR(255) NOT NULL,
    agent_b        VARCHAR(255) NOT NULL,
    similarity     DOUBLE NOT NULL,
    phase_diff     DOUBLE NOT NULL,
    dispute_count  INTEGER NOT NULL DEFAULT 1,
    status         VARCHAR(255) NOT NULL DEFAULT 'pending',
    resolution     TEXT,
    created_at     VARCHAR(32) NOT NULL,
    resolved_at    VARCHAR(32)
);

CREATE TABLE dream_runs (
    id           VARCHAR(64) PRIMARY KEY,
    agent_id     VARCHAR(255) NOT NULL,
    branch_name  VARCHAR(255) NOT NULL,
    status       VARCHAR(255) NOT NULL,
    stats        TEXT NOT NULL DEFAULT ('{}'),
    started_at   VARCHAR(32) NOT NULL,
    finished_at  VARCHAR(32)
);

CREATE TABLE dream_clusters (
    run_id       VARCHAR(255) NOT NULL,
    cluster_id   INTEGER NOT NULL,
    memory_ids   TEXT NOT NULL,
    order_param  DOUBLE,
    PRIMARY KEY (run_id, cluster_id)
);

CREATE TABLE prune_hints (
    run_id     VARCHAR(255) NOT NULL,
    memory_id  VARCHAR(255) NOT NULL,
    reason     VARCHAR(255) NOT NULL,
    strength   DOUBLE NOT NULL,
    PRIMARY KEY (run_id, memory_id)
);

CREATE TABLE IF NOT EXISTS local_access (
    memory_id    VARCHAR(64) PRIMARY KEY,
    count        INTEGER NOT NULL DEFAULT 0,
    last_access  VARCHAR(32) NOT NULL
);

CREATE TABLE IF NOT EXISTS local_outbox (
    event_id    VARCHAR(64) PRIMARY KEY,
    subject     TEXT NOT NULL,
    envelope    TEXT NOT NULL,
    created_at  VARCHAR(32) NOT NULL,
    sent_at     VARCHAR(32)
);

CREATE TABLE IF NOT EXISTS local_inbox (
    event_id     VARCHAR(64) PRIMARY KEY,
    subject      TEXT NOT NULL,
    envelope     TEXT NOT NULL,
    received_at  VARCHAR(32) NOT NULL
);

CREATE TABLE IF NOT EXISTS local_state (
    name   VARCHAR(128) PRIMARY KEY,
    value  TEXT NOT NULL
);
