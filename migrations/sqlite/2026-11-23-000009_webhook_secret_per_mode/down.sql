ALTER TABLE accounts DROP COLUMN test_webhook_secret_sealed;
ALTER TABLE accounts RENAME COLUMN live_webhook_secret_sealed TO webhook_secret_sealed;
