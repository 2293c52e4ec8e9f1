CREATE TABLE api_keys_single (
    lookup_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    sealed_key BLOB NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, livemode)
);
INSERT INTO api_keys_single (lookup_hash, account_id, livemode, sealed_key, created_at)
    SELECT lookup_hash, account_id, livemode, sealed_key, created_at FROM api_keys WHERE expires_at IS NULL;
DROP TABLE api_keys;
ALTER TABLE api_keys_single RENAME TO api_keys;
