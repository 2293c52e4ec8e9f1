DROP TABLE reversal_references;
CREATE UNIQUE INDEX processor_cards_by_id ON processor_cards (livemode, processor_card_id);
DROP TABLE processor_card_ids;
DROP INDEX cardholders_by_id, cards_by_id, card_transactions_by_id, card_transfers_by_id,
    three_ds_challenges_by_id, events_by_id, jobs_by_id, ledger_accounts_by_id, rewards_by_id,
    card_spending_by_card, processor_cards_by_card, processor_customers_by_cardholder;
DROP INDEX card_reversals_by_reference;
CREATE UNIQUE INDEX card_reversals_by_reference ON card_reversals (livemode, reference);
DROP INDEX card_transactions_approved_seq;
CREATE UNIQUE INDEX card_transactions_approved_seq ON card_transactions (card_id, approved_seq)
    WHERE approved_seq IS NOT NULL;

ALTER TABLE card_details_tokens DROP CONSTRAINT card_details_tokens_account_id_card_id_fkey;
ALTER TABLE card_reversals DROP CONSTRAINT card_reversals_account_id_card_id_fkey,
    DROP CONSTRAINT card_reversals_account_id_transaction_id_fkey;
ALTER TABLE card_spending DROP CONSTRAINT card_spending_account_id_card_id_fkey;
ALTER TABLE card_transactions DROP CONSTRAINT card_transactions_account_id_card_id_fkey;
ALTER TABLE card_transfers DROP CONSTRAINT card_transfers_account_id_card_id_fkey;
ALTER TABLE cards DROP CONSTRAINT cards_account_id_cardholder_id_fkey;
ALTER TABLE event_deliveries DROP CONSTRAINT event_deliveries_account_id_event_id_fkey;
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_account_id_entry_id_fkey,
    DROP CONSTRAINT ledger_postings_account_id_ledger_account_id_fkey;
ALTER TABLE processor_cards DROP CONSTRAINT processor_cards_account_id_card_id_fkey;
ALTER TABLE processor_customers DROP CONSTRAINT processor_customers_account_id_cardholder_id_fkey;
ALTER TABLE rewards DROP CONSTRAINT rewards_account_id_cardholder_id_fkey;
ALTER TABLE three_ds_challenges DROP CONSTRAINT three_ds_challenges_account_id_card_id_fkey;
ALTER TABLE wallet_credits DROP CONSTRAINT wallet_credits_account_id_entry_id_fkey;

ALTER TABLE cardholders DROP CONSTRAINT cardholders_pkey, ADD PRIMARY KEY (id);
ALTER TABLE cards DROP CONSTRAINT cards_pkey, ADD PRIMARY KEY (id);
ALTER TABLE card_transactions DROP CONSTRAINT card_transactions_pkey, ADD PRIMARY KEY (id);
ALTER TABLE card_transfers DROP CONSTRAINT card_transfers_pkey, ADD PRIMARY KEY (id);
ALTER TABLE card_reversals DROP CONSTRAINT card_reversals_pkey, ADD PRIMARY KEY (id);
ALTER TABLE three_ds_challenges DROP CONSTRAINT three_ds_challenges_pkey, ADD PRIMARY KEY (id);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (id);
ALTER TABLE jobs DROP CONSTRAINT jobs_pkey, ADD PRIMARY KEY (id);
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_pkey, ADD PRIMARY KEY (id);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey, ADD PRIMARY KEY (id);
ALTER TABLE rewards DROP CONSTRAINT rewards_pkey, ADD PRIMARY KEY (id);
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_pkey, ADD PRIMARY KEY (entry_id, seq);
ALTER TABLE event_deliveries DROP CONSTRAINT event_deliveries_pkey, ADD PRIMARY KEY (event_id, attempt);
ALTER TABLE card_spending DROP CONSTRAINT card_spending_pkey, ADD PRIMARY KEY (card_id);
ALTER TABLE processor_cards DROP CONSTRAINT processor_cards_pkey, ADD PRIMARY KEY (card_id);
ALTER TABLE processor_customers DROP CONSTRAINT processor_customers_pkey, ADD PRIMARY KEY (cardholder_id);

ALTER TABLE card_details_tokens ADD FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE card_reversals ADD FOREIGN KEY (card_id) REFERENCES cards (id),
    ADD FOREIGN KEY (transaction_id) REFERENCES card_transactions (id);
ALTER TABLE card_spending ADD FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE card_transactions ADD FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE card_transfers ADD FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE cards ADD FOREIGN KEY (cardholder_id) REFERENCES cardholders (id);
ALTER TABLE event_deliveries ADD FOREIGN KEY (event_id) REFERENCES events (id);
ALTER TABLE ledger_postings ADD FOREIGN KEY (entry_id) REFERENCES ledger_entries (id),
    ADD FOREIGN KEY (ledger_account_id) REFERENCES ledger_accounts (id);
ALTER TABLE processor_cards ADD FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE processor_customers ADD FOREIGN KEY (cardholder_id) REFERENCES cardholders (id);
ALTER TABLE rewards ADD FOREIGN KEY (cardholder_id) REFERENCES cardholders (id);
ALTER TABLE three_ds_challenges ADD FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE wallet_credits ADD FOREIGN KEY (entry_id) REFERENCES ledger_entries (id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE ledger_postings DROP COLUMN account_id;
ALTER TABLE event_deliveries DROP COLUMN account_id;
ALTER TABLE card_spending DROP COLUMN account_id;
ALTER TABLE processor_cards DROP COLUMN account_id;
ALTER TABLE processor_customers DROP COLUMN account_id;
