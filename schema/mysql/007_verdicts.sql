-- Verdicts that change what agents believe (DESIGN.md, Verdicts).
-- A memory on the losing side of a verdict is refuted: `refuted_by` names the
-- dispute (keep a / keep b) or the corrected memory (merged) that refuted it,
-- `valid_until` the verdict's time. Nothing is deleted: `--as-of` still sees it.
-- A case records the dispute it belongs to (`dispute`: another case of the same
-- disagreement, or none): cases whose sides are copies of the same two claims
-- group into one dispute, the same on every agent (see quarantine/grouping.py).

ALTER TABLE memories ADD COLUMN refuted_by VARCHAR(255);
ALTER TABLE memories ADD COLUMN valid_until VARCHAR(32);
ALTER TABLE quarantine ADD COLUMN dispute VARCHAR(255);
