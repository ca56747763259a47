-- The judge's analysis of each memory text, kept so that a pull analyses only
-- what it has not read before. Derived, per machine, unversioned (local_%):
-- `version` names the judge code that made it; another version is stale.

CREATE TABLE IF NOT EXISTS local_analyses (
    text_hash     VARCHAR(64) PRIMARY KEY,
    version       VARCHAR(64) NOT NULL,
    analysis      MEDIUMBLOB NOT NULL
);
