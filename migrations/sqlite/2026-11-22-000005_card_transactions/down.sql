UPDATE ledger_accounts SET allow_negative = FALSE WHERE code LIKE 'card:%';
ALTER TABLE cards DROP COLUMN last_activity_at;
ALTER TABLE cards DROP COLUMN month_spend;
ALTER TABLE cards DROP COLUMN spend_month;
DELETE FROM ledger_accounts WHERE code LIKE 'card_spend:%';
DROP TABLE card_transactions;
