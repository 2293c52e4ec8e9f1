-- Accounts, their keys, the double-entry ledger and rate limits.
-- Every table is keyed by account_id first (see docs/architecture.md).

CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    is_demo BOOLEAN NOT NULL DEFAULT FALSE,
    webhook_url_test TEXT,
    webhook_url_live TEXT,
    webhook_secret_sealed BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    lookup_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    sealed_key BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, livemode)
);

CREATE TABLE ledger_accounts (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    code TEXT NOT NULL,
    currency TEXT NOT NULL,
    balance BIGINT NOT NULL DEFAULT 0,
    allow_negative BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, livemode, code, currency)
);

CREATE TABLE ledger_entries (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    kind TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX ledger_entries_by_account ON ledger_entries (account_id, livemode, created_at);

CREATE TABLE ledger_postings (
    entry_id TEXT NOT NULL REFERENCES ledger_entries (id),
    seq INTEGER NOT NULL,
    ledger_account_id TEXT NOT NULL REFERENCES ledger_accounts (id),
    currency TEXT NOT NULL,
    amount BIGINT NOT NULL,
    PRIMARY KEY (entry_id, seq)
);
CREATE INDEX ledger_postings_by_ledger_account ON ledger_postings (ledger_account_id);

CREATE TABLE rate_limits (
    account_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    action TEXT NOT NULL,
    subject TEXT NOT NULL,
    last_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, action, subject)
);
