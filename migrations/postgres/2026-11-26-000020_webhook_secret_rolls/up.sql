-- A rolled webhook secret keeps signing, beside its successor, until it
-- expires: each mode's previous secret, sealed as the current one is.
ALTER TABLE accounts ADD COLUMN test_previous_webhook_secret_sealed BYTEA;
ALTER TABLE accounts ADD COLUMN test_previous_webhook_secret_expires_at BIGINT;
ALTER TABLE accounts ADD COLUMN live_previous_webhook_secret_sealed BYTEA;
ALTER TABLE accounts ADD COLUMN live_previous_webhook_secret_expires_at BIGINT;
