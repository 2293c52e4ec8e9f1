-- Rewards: each account's reward rules per mode, the operator's imported
-- catalogue (the shipped one when none), and the rewards cardholders
-- earned, each as it was when earned. A rule earns at most one reward per
-- cardholder and period (the unique key; sandbox assignments have none).
CREATE TABLE reward_rules (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    enabled BOOLEAN NOT NULL,
    spend_threshold BIGINT NOT NULL CHECK (spend_threshold >= 0),
    monthly_debits INTEGER NOT NULL CHECK (monthly_debits > 0),
    inactivity_days INTEGER NOT NULL CHECK (inactivity_days > 0),
    PRIMARY KEY (account_id, livemode)
);
CREATE TABLE reward_catalogues (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    body TEXT NOT NULL,
    imported_at BIGINT NOT NULL
);
CREATE TABLE rewards (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    cardholder_id TEXT NOT NULL REFERENCES cardholders (id),
    reward TEXT NOT NULL,
    earned_at BIGINT NOT NULL,
    claimed_at BIGINT,
    rule TEXT,
    period TEXT,
    UNIQUE (account_id, livemode, cardholder_id, rule, period)
);
CREATE INDEX rewards_by_cardholder ON rewards (cardholder_id, earned_at);
CREATE INDEX card_transactions_by_cardholder ON card_transactions (cardholder_id, created_at);
