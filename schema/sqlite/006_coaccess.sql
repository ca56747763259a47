-- Co-access (the resonance-field seed's Hebbian counter): for each memory, how many
-- recalls returned it together with others and the product of their bonuses
-- (1 + 0.02 (k - 1)) for a recall of k memories. Recall writes it without committing
-- (local_%, unversioned); a dream's strengthen stage folds it into the amplitude and
-- takes away what it folded.

CREATE TABLE IF NOT EXISTS local_coaccess (
    memory_id    TEXT PRIMARY KEY,
    retrievals   INTEGER NOT NULL DEFAULT 0,
    factor       REAL NOT NULL DEFAULT 1.0,
    last_access  TEXT NOT NULL
);
