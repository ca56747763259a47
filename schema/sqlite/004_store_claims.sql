-- Claims that serialise concurrent stores of the same text (dedup under
-- concurrency). A store writes a fresh token into the bucket of each content
-- hash it writes, in its write transaction: on a Dolt server two transactions
-- that touch one bucket conflict at commit and the later one retries, reading
-- the earlier one's memory and reinforcing it; doltlite holds the write lock
-- for the whole transaction anyway. 256 buckets (two hex digits of the hash):
-- bounded, and stores of different texts rarely meet. Unversioned (local_%).

CREATE TABLE IF NOT EXISTS local_store_claims (
    bucket  TEXT PRIMARY KEY,
    token   TEXT NOT NULL
);
