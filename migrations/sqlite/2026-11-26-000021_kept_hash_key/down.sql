CREATE TABLE master_key_check_one (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    sealed BLOB NOT NULL
);
INSERT INTO master_key_check_one (id, sealed) SELECT id, sealed FROM master_key_check WHERE id = 1;
DROP TABLE master_key_check;
ALTER TABLE master_key_check_one RENAME TO master_key_check;
