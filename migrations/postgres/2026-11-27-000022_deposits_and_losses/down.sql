DROP TABLE wallet_credits;
DELETE FROM ledger_accounts WHERE code IN ('deposits', 'losses');
