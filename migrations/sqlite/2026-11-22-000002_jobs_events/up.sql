-- Durable background work, the webhook event log, and sandbox test clocks.

-- A job is inserted in the same transaction as the change that promised it.
-- state: pending -> running (leased until locked_until) -> done, or back to
-- pending with a later run_at, or failed (parked, kept with its last error).
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    run_at BIGINT NOT NULL,
    locked_until BIGINT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX jobs_due ON jobs (state, run_at);
CREATE INDEX jobs_by_account ON jobs (account_id, livemode, state);

-- Every webhook event, stored with the change it reports.
CREATE TABLE events (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    event TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    delivery_state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at BIGINT
);
-- Event ids are time-ordered (UUIDv7), so id order is creation order.
CREATE INDEX events_by_account ON events (account_id, livemode, id);

-- One row per delivery attempt.
CREATE TABLE event_deliveries (
    event_id TEXT NOT NULL REFERENCES events (id),
    attempt INTEGER NOT NULL,
    attempted_at BIGINT NOT NULL,
    url TEXT NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms BIGINT NOT NULL,
    PRIMARY KEY (event_id, attempt)
);

-- How far each account's sandbox has been moved ahead of real time.
CREATE TABLE test_clocks (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    offset_secs BIGINT NOT NULL
);
