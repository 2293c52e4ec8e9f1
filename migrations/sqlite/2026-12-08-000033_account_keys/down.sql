DROP TABLE reversal_references;
CREATE UNIQUE INDEX processor_cards_by_id ON processor_cards (livemode, processor_card_id);
DROP TABLE processor_card_ids;
DROP INDEX card_reversals_by_reference;
CREATE UNIQUE INDEX card_reversals_by_reference ON card_reversals (livemode, reference);
DROP INDEX card_transactions_approved_seq;
CREATE UNIQUE INDEX card_transactions_approved_seq ON card_transactions (card_id, approved_seq)
    WHERE approved_seq IS NOT NULL;
ALTER TABLE processor_customers DROP COLUMN account_id;
ALTER TABLE processor_cards DROP COLUMN account_id;
DROP INDEX card_spending_by_account;
ALTER TABLE card_spending DROP COLUMN account_id;
ALTER TABLE event_deliveries DROP COLUMN account_id;
ALTER TABLE ledger_postings DROP COLUMN account_id;
