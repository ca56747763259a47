-- Which verdict took effect on a case here, so that one can be withdrawn. Two
-- reviewers (or one, on two agents before they met) may decide a case differently;
-- when the copies meet, the first verdict stands (quarantine/cases.merge_cases), and
-- a holder that applied the other one withdraws it and applies the first.
-- Rows applied before this schema have none: their verdict is taken to stand.

ALTER TABLE applied_verdicts ADD COLUMN verdict_signature TEXT;
ALTER TABLE applied_verdicts ADD COLUMN resolution TEXT;
