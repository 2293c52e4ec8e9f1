UPDATE ledger_accounts SET balance = balance - (
    SELECT SUM(p.amount) FROM ledger_postings p
    WHERE p.ledger_account_id = ledger_accounts.id AND p.entry_id LIKE 'le_old_write_off_%'
)
WHERE id IN (SELECT ledger_account_id FROM ledger_postings WHERE entry_id LIKE 'le_old_write_off_%');
DELETE FROM ledger_postings WHERE entry_id LIKE 'le_old_write_off_%';
DELETE FROM ledger_entries WHERE id LIKE 'le_old_write_off_%';
