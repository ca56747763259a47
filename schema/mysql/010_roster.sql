-- The collective's roster (DESIGN.md, Trust; docs/concepts/security.md): each version a signed
-- document naming the agents and their keys, the reviewers, the endorsers and how many
-- endorsements promote, and its owners. An agent keeps every version it verified, in
-- order; the commons keeps them on the collective/roster branch.

CREATE TABLE roster (
    version     INT PRIMARY KEY,
    document    TEXT NOT NULL,
    signatures  TEXT NOT NULL
);
