-- A rolled key stays valid until it expires; a revoked one expired at once.
-- NULL: the mode's current key, which never expires. A mode has one
-- current key, and any number of keys on their way out. (SQLite cannot
-- drop the old unique constraint: the table is rebuilt.)
CREATE TABLE api_keys_rolled (
    lookup_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    sealed_key BLOB NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT
);
INSERT INTO api_keys_rolled (lookup_hash, account_id, livemode, sealed_key, created_at)
    SELECT lookup_hash, account_id, livemode, sealed_key, created_at FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_rolled RENAME TO api_keys;
CREATE UNIQUE INDEX api_keys_current ON api_keys (account_id, livemode) WHERE expires_at IS NULL;
CREATE INDEX api_keys_account ON api_keys (account_id);
