-- Idempotency keys of writes (`Idempotency-Key`): what each was first
-- used for, the claim of the request that runs it (lease_until set, in
-- real seconds) or its kept answer (lease_until NULL), for a day of the
-- mode's clock.
CREATE TABLE idempotency_keys (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    idempotency_key TEXT NOT NULL,
    request TEXT NOT NULL,
    params_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    claim_token TEXT NOT NULL,
    lease_until BIGINT,
    answer_status INTEGER,
    answer_content_type TEXT,
    answer_body BYTEA,
    PRIMARY KEY (account_id, livemode, idempotency_key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (account_id, livemode, created_at);
