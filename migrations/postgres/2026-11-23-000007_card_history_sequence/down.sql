DROP INDEX card_transactions_approved_seq;
ALTER TABLE card_transactions DROP COLUMN approved_seq;
ALTER TABLE cards DROP COLUMN approved_count;
