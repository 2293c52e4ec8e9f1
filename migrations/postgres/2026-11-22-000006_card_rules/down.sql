DELETE FROM jobs WHERE kind IN ('card_inactivity', 'card_maintenance_fee');
DELETE FROM ledger_accounts WHERE code = 'fee_income';
