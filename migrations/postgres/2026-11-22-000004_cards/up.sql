-- USD cards, the money moving onto and off them, and card-details tokens.

-- The card row is the card's lock: every change to a card's ledger balance
-- first updates its row, so changes to one card are serialised.
CREATE TABLE cards (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    cardholder_id TEXT NOT NULL REFERENCES cardholders (id),
    card_type TEXT NOT NULL,
    card_name TEXT NOT NULL,
    -- Each sealed on its own by the vault (AES-256-GCM, master key).
    pan_sealed BYTEA NOT NULL,
    cvv_sealed BYTEA NOT NULL,
    expiry_month_sealed BYTEA NOT NULL,
    expiry_year_sealed BYTEA NOT NULL,
    last_4 TEXT NOT NULL,
    pin_sealed BYTEA NOT NULL,
    pin_3ds_sealed BYTEA,
    card_limit BIGINT NOT NULL,
    fee_hold BIGINT NOT NULL,
    token_number TEXT,
    is_active BOOLEAN NOT NULL,
    blocked_due_to_fraud BOOLEAN NOT NULL DEFAULT FALSE,
    consecutive_declines INTEGER NOT NULL DEFAULT 0,
    last_funded_at BIGINT,
    last_unloaded_at BIGINT,
    meta_data TEXT,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX cards_by_account ON cards (account_id, livemode, id);
CREATE INDEX cards_by_cardholder ON cards (cardholder_id, id);
CREATE UNIQUE INDEX cards_token_number ON cards (account_id, livemode, token_number) WHERE token_number IS NOT NULL;

-- A transaction_reference is used once per account and mode, across
-- fundings, unloadings and debits.
CREATE TABLE transaction_references (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    reference TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, reference)
);

-- kind: fund | unload. state: pending (money in transit) -> succeeded | failed.
CREATE TABLE card_transfers (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    card_id TEXT NOT NULL REFERENCES cards (id),
    cardholder_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    amount BIGINT NOT NULL,
    transaction_reference TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    settled_at BIGINT
);
CREATE INDEX card_transfers_by_card ON card_transfers (card_id, id);

-- Single-use card-details tokens; only a SHA-256 of the token is kept.
CREATE TABLE card_details_tokens (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    card_id TEXT NOT NULL REFERENCES cards (id),
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

-- Money in transit between a wallet and a card, per account, mode and
-- currency, for the accounts that exist already (new ones open it).
INSERT INTO ledger_accounts (id, account_id, livemode, code, currency, balance, allow_negative, created_at)
SELECT 'la_' || a.id || '_' || m.mode || '_in_transit_' || c.currency, a.id, m.live, 'in_transit', c.currency,
       0, FALSE, a.created_at
FROM accounts a
CROSS JOIN (SELECT 'test' AS mode, FALSE AS live UNION ALL SELECT 'live', TRUE) m
CROSS JOIN (SELECT 'USD' AS currency UNION ALL SELECT 'NGN') c;
