-- Spending controls: a card's own (JSON, NULL: none) beside its approved
-- spend by window in USD cents (the GMT day and the week from Monday, as
-- days and weeks since 1970, and its whole life; the month's is on the
-- card), which the debit's batch reads and advances under the card's
-- lock; and an account's for every card of a mode.
CREATE TABLE card_spending (
    card_id TEXT PRIMARY KEY REFERENCES cards (id),
    controls TEXT,
    day_key INTEGER NOT NULL DEFAULT 0,
    day_spend BIGINT NOT NULL DEFAULT 0,
    week_key INTEGER NOT NULL DEFAULT 0,
    week_spend BIGINT NOT NULL DEFAULT 0,
    lifetime_spend BIGINT NOT NULL DEFAULT 0
);
-- A USD card's life so far is its approved debits (its maintenance fees
-- are not spending); a Naira card's, whose debits counted at rates not
-- kept, starts from its month's spend. Days and weeks start empty.
INSERT INTO card_spending (card_id, lifetime_spend)
SELECT c.id, CASE
    WHEN c.currency = 'USD' THEN COALESCE((SELECT SUM(t.amount) FROM card_transactions t
        WHERE t.card_id = c.id AND t.status = 'approved'
        AND t.merchant_name <> 'Monthly maintenance fee'), 0)
    ELSE c.month_spend END
FROM cards c WHERE c.deleted_at IS NULL;
CREATE TABLE spending_controls (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    controls TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode)
);
-- A 3-D Secure debit waits with its merchant's country, for the controls
-- that decide it when its OTP comes (its channel is always online).
ALTER TABLE three_ds_challenges ADD COLUMN merchant_country TEXT;
