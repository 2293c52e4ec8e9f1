-- Row 2 keeps the key of keyed hashes (3-D Secure OTPs, reward links,
-- page sessions), sealed under the master key, so that a new master key
-- leaves it as it was. (SQLite cannot change a CHECK: the table is rebuilt.)
CREATE TABLE master_key_check_two (
    id INTEGER PRIMARY KEY CHECK (id IN (1, 2)),
    sealed BLOB NOT NULL
);
INSERT INTO master_key_check_two (id, sealed) SELECT id, sealed FROM master_key_check;
DROP TABLE master_key_check;
ALTER TABLE master_key_check_two RENAME TO master_key_check;
