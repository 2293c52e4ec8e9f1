-- Card transactions (debits approved or declined), the month's spend on
-- each card, and the ledger accounts card spending settles through.

-- status: approved | declined. id is the issuer_transaction_reference.
CREATE TABLE card_transactions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    card_id TEXT NOT NULL REFERENCES cards (id),
    cardholder_id TEXT NOT NULL,
    client_reference TEXT NOT NULL,
    status TEXT NOT NULL,
    decline_reason TEXT,
    amount BIGINT NOT NULL,
    currency TEXT NOT NULL,
    description TEXT NOT NULL,
    merchant_category_code TEXT,
    -- The enriched_data object as JSON, decided when the debit arrived.
    enriched_data TEXT NOT NULL,
    -- The enriched merchant name, to tell recurring charges.
    merchant_name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
-- History pages: a card's approved debits, newest first.
CREATE INDEX card_transactions_history ON card_transactions (card_id, status, created_at DESC, id DESC);
CREATE INDEX card_transactions_by_reference ON card_transactions (account_id, livemode, client_reference);

-- The month (YYYYMM, GMT) the spend counts for, so a new month starts at 0.
ALTER TABLE cards ADD COLUMN spend_month INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cards ADD COLUMN month_spend BIGINT NOT NULL DEFAULT 0;
ALTER TABLE cards ADD COLUMN last_activity_at BIGINT;

-- A network-forced post may take a card below zero: that path is explicit
-- in code; the ledger check accepts it on card balances.
UPDATE ledger_accounts SET allow_negative = TRUE WHERE code LIKE 'card:%';

-- Card spending settles to the network through a per-card account (no
-- row every debit of an account would share).
INSERT INTO ledger_accounts (id, account_id, livemode, code, currency, balance, allow_negative, created_at)
SELECT 'la_' || id || '_spend', account_id, livemode, 'card_spend:' || id, 'USD', 0, FALSE, created_at FROM cards;
