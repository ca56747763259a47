-- Memories proposed for main (consensus), shared on collective/quarantine with their
-- endorsements (table `endorsements`, schema 003). The proposal is signed by the agent
-- that proposed it; a person's decision (approve or reject) is a document signed with
-- the reviewer's key, honoured only where that reviewer is authorised. Whether a
-- memory was promoted is read from main itself, where the promotion is one commit.

CREATE TABLE promotions (
    memory_id           TEXT PRIMARY KEY,
    origin_agent        TEXT NOT NULL,
    proposed_by         TEXT NOT NULL,
    proposed_at         TEXT NOT NULL,
    note                TEXT,
    proposal_signature  TEXT NOT NULL,
    decision            TEXT,
    decision_signature  TEXT,
    decided_at          TEXT
);
