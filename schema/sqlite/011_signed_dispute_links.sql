-- A case's link to the dispute it joined (`dispute`, schema 7) is signed by the agent that
-- made it, as the opening and the count are: a pull takes a link only when that agent's
-- signature over it verifies (and, on a roster, that agent is on it). A link nobody can
-- vouch for would let any writer of the commons move a case into another dispute.

ALTER TABLE quarantine ADD COLUMN dispute_by TEXT;
ALTER TABLE quarantine ADD COLUMN dispute_signature TEXT;
