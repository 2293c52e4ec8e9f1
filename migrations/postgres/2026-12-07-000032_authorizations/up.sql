-- The authorization lifecycle. A card transaction is a debit (spent at
-- once), an authorization or an increment (a hold: `status` pending, then
-- closed, reversed or expired), or a capture (what an authorization's
-- capture spent); increments and captures name their authorization.
ALTER TABLE card_transactions ADD COLUMN kind TEXT NOT NULL DEFAULT 'debit';
ALTER TABLE card_transactions ADD COLUMN authorization_id TEXT;
CREATE INDEX card_transactions_by_authorization ON card_transactions (authorization_id)
    WHERE authorization_id IS NOT NULL;
-- Each card's held money, in its currency: what its pending holds took
-- from its available balance.
INSERT INTO ledger_accounts (id, account_id, livemode, code, currency, balance, created_at)
SELECT 'la_' || c.id || '_held', c.account_id, c.livemode, 'card_held:' || c.id, c.currency, 0, c.created_at
FROM cards c;
