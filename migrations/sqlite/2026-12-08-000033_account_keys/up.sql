-- The child tables that named their parent only by id carry its account,
-- as on PostgreSQL, where every key now leads with it (docs/scaling.md).
-- SQLite's primary keys stay: one file is never distributed, and its keys
-- cannot be altered without rebuilding every table. Its unique indexes
-- match PostgreSQL's, which decide what is a conflict.
ALTER TABLE ledger_postings ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
UPDATE ledger_postings SET account_id = (SELECT e.account_id FROM ledger_entries e WHERE e.id = ledger_postings.entry_id);
ALTER TABLE event_deliveries ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
UPDATE event_deliveries SET account_id = (SELECT e.account_id FROM events e WHERE e.id = event_deliveries.event_id);
ALTER TABLE card_spending ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
UPDATE card_spending SET account_id = (SELECT c.account_id FROM cards c WHERE c.id = card_spending.card_id);
CREATE UNIQUE INDEX card_spending_by_account ON card_spending (account_id, card_id);
ALTER TABLE processor_cards ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
UPDATE processor_cards SET account_id = (SELECT c.account_id FROM cards c WHERE c.id = processor_cards.card_id);
ALTER TABLE processor_customers ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
UPDATE processor_customers SET account_id = (SELECT h.account_id FROM cardholders h WHERE h.id = processor_customers.cardholder_id);

DROP INDEX card_transactions_approved_seq;
CREATE UNIQUE INDEX card_transactions_approved_seq ON card_transactions (account_id, card_id, approved_seq)
    WHERE approved_seq IS NOT NULL;

-- A reversal's reference is applied once per mode (docs/api.md): the
-- processor's name its own transactions, whatever the account (a sandbox
-- reference is stored prefixed with its account's id). A lookup table
-- keyed by the reference keeps that (on Citus, distributed by it), in
-- place of a unique index across an account's table.
CREATE TABLE reversal_references (
    livemode BOOLEAN NOT NULL,
    reference TEXT NOT NULL,
    account_id TEXT NOT NULL,
    PRIMARY KEY (livemode, reference)
);
INSERT INTO reversal_references (livemode, reference, account_id)
SELECT livemode, reference, account_id FROM card_reversals;
DROP INDEX card_reversals_by_reference;
CREATE UNIQUE INDEX card_reversals_by_reference ON card_reversals (account_id, livemode, reference);

-- The processor's card ids, unique across accounts: its webhooks name
-- only that id. A table of its own, keyed by it (on Citus, distributed
-- by it: it is read before the account is known), in place
-- of the unique index on processor_cards.
CREATE TABLE processor_card_ids (
    livemode BOOLEAN NOT NULL,
    processor_card_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    card_id TEXT NOT NULL,
    PRIMARY KEY (livemode, processor_card_id)
);
INSERT INTO processor_card_ids (livemode, processor_card_id, account_id, card_id)
SELECT livemode, processor_card_id, account_id, card_id FROM processor_cards;
DROP INDEX processor_cards_by_id;
