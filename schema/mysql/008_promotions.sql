-- Memories proposed for main (consensus), shared on collective/quarantine with their
-- endorsements (table `endorsements`, schema 003). The proposal is signed by the agent
-- that proposed it; a person's decision (approve or reject) is a document signed with
-- the reviewer's key, honoured only where that reviewer is authorised. Whether a
-- memory was promoted is read from main itself, where the promotion is one commit.

CREATE TABLE promotions (
    memory_id           VARCHAR(64) PRIMARY KEY,
    origin_agent        VARCHAR(255) NOT NULL,
    proposed_by         VARCHAR(255) NOT NULL,
    proposed_at         VARCHAR(32) NOT NULL,
    note                TEXT,
    proposal_signature  TEXT NOT NULL,
    decision            TEXT,
    decision_signature  TEXT,
    decided_at          VARCHAR(32)
);
