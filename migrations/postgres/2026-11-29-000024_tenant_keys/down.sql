ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
ALTER TABLE transaction_references ADD CONSTRAINT transaction_references_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
ALTER TABLE card_transfers ADD CONSTRAINT card_transfers_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
ALTER TABLE card_transactions ADD CONSTRAINT card_transactions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
ALTER TABLE events ADD CONSTRAINT events_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
ALTER TABLE jobs ADD CONSTRAINT jobs_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
