-- 3-D Secure challenges of Naira card debits: the debit waits here for
-- its OTP (stored only hashed), then posts through the authorization
-- engine or is declined.
CREATE TABLE three_ds_challenges (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    card_id TEXT NOT NULL REFERENCES cards (id),
    amount BIGINT NOT NULL CHECK (amount > 0),
    reference TEXT NOT NULL,
    descriptor TEXT NOT NULL,
    merchant_category_code TEXT,
    otp_hash TEXT,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, livemode, reference)
);
CREATE INDEX three_ds_challenges_by_card ON three_ds_challenges (card_id, state, amount);
