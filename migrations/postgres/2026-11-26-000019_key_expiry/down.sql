DELETE FROM api_keys WHERE expires_at IS NOT NULL;
DROP INDEX api_keys_account;
DROP INDEX api_keys_current;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_account_id_livemode_key UNIQUE (account_id, livemode);
ALTER TABLE api_keys DROP COLUMN expires_at;
