-- A rolled key stays valid until it expires; a revoked one expired at once.
-- NULL: the mode's current key, which never expires. A mode has one
-- current key, and any number of keys on their way out.
ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_account_id_livemode_key;
CREATE UNIQUE INDEX api_keys_current ON api_keys (account_id, livemode) WHERE expires_at IS NULL;
CREATE INDEX api_keys_account ON api_keys (account_id);
