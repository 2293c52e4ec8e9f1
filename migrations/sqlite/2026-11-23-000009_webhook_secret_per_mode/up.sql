-- Each mode signs its webhooks with its own secret: one secret for both
-- let a holder of the test key (which opens x-webhook-signature of sandbox
-- deliveries) forge live webhooks. The existing secret stays the live one;
-- the sandbox gets a new one, generated and sealed by the service at its
-- next start (a migration cannot seal under the master key).
ALTER TABLE accounts RENAME COLUMN webhook_secret_sealed TO live_webhook_secret_sealed;
ALTER TABLE accounts ADD COLUMN test_webhook_secret_sealed BLOB;
