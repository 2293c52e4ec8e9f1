DELETE FROM ledger_accounts WHERE code LIKE 'card_held:%';
DROP INDEX card_transactions_by_authorization;
ALTER TABLE card_transactions DROP COLUMN authorization_id;
ALTER TABLE card_transactions DROP COLUMN kind;
