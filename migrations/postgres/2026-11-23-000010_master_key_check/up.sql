-- A known text sealed under the master key: a start with another key
-- (a lost key file replaced by a new one, a mistyped ISSUING_MASTER_KEY)
-- is refused instead of sealing new data under a key old data cannot be
-- opened with.
CREATE TABLE master_key_check (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    sealed BYTEA NOT NULL
);
