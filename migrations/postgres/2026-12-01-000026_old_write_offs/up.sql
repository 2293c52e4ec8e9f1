-- Cards deleted before `deposits_and_losses` kept their negative balance
-- (a forced post's) on their own ledger account. Each is written off now
-- to its account's losses, as a deletion does since then, so that no
-- deleted card holds anything (`issuing ledger check` checks it).
INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at)
SELECT 'le_old_write_off_' || c.id, c.account_id, c.livemode, 'card_write_off', c.deleted_at
FROM cards c JOIN ledger_accounts a ON a.id = 'la_' || c.id
WHERE c.deleted_at IS NOT NULL AND a.balance < 0;

INSERT INTO ledger_postings (entry_id, seq, ledger_account_id, currency, amount)
SELECT 'le_old_write_off_' || c.id, 0,
       'la_' || c.account_id || '_' || CASE WHEN c.livemode THEN 'live' ELSE 'test' END || '_losses_' || a.currency,
       a.currency, a.balance
FROM cards c JOIN ledger_accounts a ON a.id = 'la_' || c.id
WHERE c.deleted_at IS NOT NULL AND a.balance < 0;

INSERT INTO ledger_postings (entry_id, seq, ledger_account_id, currency, amount)
SELECT 'le_old_write_off_' || c.id, 1, a.id, a.currency, -a.balance
FROM cards c JOIN ledger_accounts a ON a.id = 'la_' || c.id
WHERE c.deleted_at IS NOT NULL AND a.balance < 0;

-- Each balance becomes the sum of its postings again.
UPDATE ledger_accounts SET balance = balance + (
    SELECT SUM(p.amount) FROM ledger_postings p
    WHERE p.ledger_account_id = ledger_accounts.id AND p.entry_id LIKE 'le_old_write_off_%'
)
WHERE id IN (SELECT ledger_account_id FROM ledger_postings WHERE entry_id LIKE 'le_old_write_off_%');
