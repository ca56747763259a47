-- What a receiver decided for each event it took in, and why (pull now, queue for the
-- next sync window, skip); done_at is set when a pull brought what it was about.
-- Per machine, unversioned (local_%), beside local_outbox and local_inbox.

CREATE TABLE IF NOT EXISTS local_decisions (
    event_id    TEXT PRIMARY KEY,
    sender      TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    entity_id   TEXT NOT NULL,
    decision    TEXT NOT NULL,
    reason      TEXT NOT NULL,
    decided_at  TEXT NOT NULL,
    done_at     TEXT
);
