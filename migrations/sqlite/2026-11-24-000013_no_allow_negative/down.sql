ALTER TABLE ledger_accounts ADD COLUMN allow_negative BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE ledger_accounts SET allow_negative = TRUE WHERE code = 'faucet' OR code LIKE 'card:%';
