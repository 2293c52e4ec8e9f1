-- Every key leads with the account (docs/scaling.md): Citus needs the
-- distribution column in each primary key, unique key and foreign key
-- between distributed tables, and a lookup that names the account finds
-- its row through the key's first column.

-- The child tables that named their parent only by id carry its account.
ALTER TABLE ledger_postings ADD COLUMN account_id TEXT;
UPDATE ledger_postings p SET account_id = e.account_id FROM ledger_entries e WHERE e.id = p.entry_id;
ALTER TABLE ledger_postings ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE event_deliveries ADD COLUMN account_id TEXT;
UPDATE event_deliveries d SET account_id = e.account_id FROM events e WHERE e.id = d.event_id;
ALTER TABLE event_deliveries ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE card_spending ADD COLUMN account_id TEXT;
UPDATE card_spending s SET account_id = c.account_id FROM cards c WHERE c.id = s.card_id;
ALTER TABLE card_spending ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE processor_cards ADD COLUMN account_id TEXT;
UPDATE processor_cards p SET account_id = c.account_id FROM cards c WHERE c.id = p.card_id;
ALTER TABLE processor_cards ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE processor_customers ADD COLUMN account_id TEXT;
UPDATE processor_customers p SET account_id = h.account_id FROM cardholders h WHERE h.id = p.cardholder_id;
ALTER TABLE processor_customers ALTER COLUMN account_id SET NOT NULL;

-- The foreign keys to the keys that change.
ALTER TABLE card_details_tokens DROP CONSTRAINT card_details_tokens_card_id_fkey;
ALTER TABLE card_reversals DROP CONSTRAINT card_reversals_card_id_fkey,
    DROP CONSTRAINT card_reversals_transaction_id_fkey;
ALTER TABLE card_spending DROP CONSTRAINT card_spending_card_id_fkey;
ALTER TABLE card_transactions DROP CONSTRAINT card_transactions_card_id_fkey;
ALTER TABLE card_transfers DROP CONSTRAINT card_transfers_card_id_fkey;
ALTER TABLE cards DROP CONSTRAINT cards_cardholder_id_fkey;
ALTER TABLE event_deliveries DROP CONSTRAINT event_deliveries_event_id_fkey;
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_entry_id_fkey,
    DROP CONSTRAINT ledger_postings_ledger_account_id_fkey;
ALTER TABLE processor_cards DROP CONSTRAINT processor_cards_card_id_fkey;
ALTER TABLE processor_customers DROP CONSTRAINT processor_customers_cardholder_id_fkey;
ALTER TABLE rewards DROP CONSTRAINT rewards_cardholder_id_fkey;
ALTER TABLE three_ds_challenges DROP CONSTRAINT three_ds_challenges_card_id_fkey;
ALTER TABLE wallet_credits DROP CONSTRAINT wallet_credits_entry_id_fkey;

-- The primary keys.
ALTER TABLE cardholders DROP CONSTRAINT cardholders_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE cards DROP CONSTRAINT cards_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE card_transactions DROP CONSTRAINT card_transactions_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE card_transfers DROP CONSTRAINT card_transfers_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE card_reversals DROP CONSTRAINT card_reversals_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE three_ds_challenges DROP CONSTRAINT three_ds_challenges_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE jobs DROP CONSTRAINT jobs_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE rewards DROP CONSTRAINT rewards_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_pkey, ADD PRIMARY KEY (account_id, entry_id, seq);
ALTER TABLE event_deliveries DROP CONSTRAINT event_deliveries_pkey, ADD PRIMARY KEY (account_id, event_id, attempt);
ALTER TABLE card_spending DROP CONSTRAINT card_spending_pkey, ADD PRIMARY KEY (account_id, card_id);
ALTER TABLE processor_cards DROP CONSTRAINT processor_cards_pkey, ADD PRIMARY KEY (account_id, card_id);
ALTER TABLE processor_customers DROP CONSTRAINT processor_customers_pkey, ADD PRIMARY KEY (account_id, cardholder_id);

-- A plain index serves what still finds a row by its id alone: a batch
-- of many accounts' debits or settlements (one statement for all their
-- cards, ledger accounts, transfers and jobs) and the job runners, which
-- hold an id. Ids are unique by construction (random, prefixed); on Citus
-- such a lookup runs on every shard (docs/scaling.md).
CREATE INDEX cardholders_by_id ON cardholders (id);
CREATE INDEX cards_by_id ON cards (id);
CREATE INDEX card_transactions_by_id ON card_transactions (id);
CREATE INDEX card_transfers_by_id ON card_transfers (id);
CREATE INDEX three_ds_challenges_by_id ON three_ds_challenges (id);
CREATE INDEX events_by_id ON events (id);
CREATE INDEX jobs_by_id ON jobs (id);
CREATE INDEX ledger_accounts_by_id ON ledger_accounts (id);
CREATE INDEX rewards_by_id ON rewards (id);
CREATE INDEX card_spending_by_card ON card_spending (card_id);
CREATE INDEX processor_cards_by_card ON processor_cards (card_id);
CREATE INDEX processor_customers_by_cardholder ON processor_customers (cardholder_id);

-- The foreign keys again, each within one account.
ALTER TABLE card_details_tokens ADD FOREIGN KEY (account_id, card_id) REFERENCES cards (account_id, id);
ALTER TABLE card_reversals ADD FOREIGN KEY (account_id, card_id) REFERENCES cards (account_id, id),
    ADD FOREIGN KEY (account_id, transaction_id) REFERENCES card_transactions (account_id, id);
ALTER TABLE card_spending ADD FOREIGN KEY (account_id, card_id) REFERENCES cards (account_id, id);
ALTER TABLE card_transactions ADD FOREIGN KEY (account_id, card_id) REFERENCES cards (account_id, id);
ALTER TABLE card_transfers ADD FOREIGN KEY (account_id, card_id) REFERENCES cards (account_id, id);
ALTER TABLE cards ADD FOREIGN KEY (account_id, cardholder_id) REFERENCES cardholders (account_id, id);
ALTER TABLE event_deliveries ADD FOREIGN KEY (account_id, event_id) REFERENCES events (account_id, id);
ALTER TABLE ledger_postings ADD FOREIGN KEY (account_id, entry_id) REFERENCES ledger_entries (account_id, id),
    ADD FOREIGN KEY (account_id, ledger_account_id) REFERENCES ledger_accounts (account_id, id);
ALTER TABLE processor_cards ADD FOREIGN KEY (account_id, card_id) REFERENCES cards (account_id, id);
ALTER TABLE processor_customers ADD FOREIGN KEY (account_id, cardholder_id) REFERENCES cardholders (account_id, id);
ALTER TABLE rewards ADD FOREIGN KEY (account_id, cardholder_id) REFERENCES cardholders (account_id, id);
ALTER TABLE three_ds_challenges ADD FOREIGN KEY (account_id, card_id) REFERENCES cards (account_id, id);
ALTER TABLE wallet_credits ADD FOREIGN KEY (account_id, entry_id) REFERENCES ledger_entries (account_id, id)
    DEFERRABLE INITIALLY DEFERRED;

-- The unique indexes lead with the account.
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
