-- What a receiver decided for each event it took in, and why (pull now, queue for the
-- next sync window, skip); done_at is set when a pull brought what it was about.
-- Per machine, unversioned (local_%), beside local_outbox and local_inbox.

CREATE TABLE IF NOT EXISTS local_decisions (
    event_id    VARCHAR(64) PRIMARY KEY,
    sender      VARCHAR(64) NOT NULL,
    event_type  VARCHAR(64) NOT NULL,
    entity_id   VARCHAR(128) NOT NULL,
    decision    VARCHAR(16) NOT NULL,
    reason      TEXT NOT NULL,
    decided_at  VARCHAR(32) NOT NULL,
    done_at     VARCHAR(32)
);
