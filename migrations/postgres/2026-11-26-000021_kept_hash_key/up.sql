-- Row 2 keeps the key of keyed hashes (3-D Secure OTPs, reward links,
-- page sessions), sealed under the master key, so that a new master key
-- leaves it as it was.
ALTER TABLE master_key_check DROP CONSTRAINT master_key_check_id_check;
ALTER TABLE master_key_check ADD CONSTRAINT master_key_check_id_check CHECK (id IN (1, 2));
