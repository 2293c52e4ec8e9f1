-- The account's transactions, newest first, paged by cursor.
CREATE INDEX card_transactions_by_account ON card_transactions (account_id, livemode, created_at DESC, id DESC);
