-- Never read: which balances a ledger account may hold is its kind's range
-- (domain::ledger::AccountKind::allowed), checked by `issuing ledger check`.
ALTER TABLE ledger_accounts DROP COLUMN allow_negative;
