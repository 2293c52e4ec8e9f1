-- The time rules of cards: maintenance fees are income of the account,
-- and every live card gets its inactivity and fee jobs (each run
-- recomputes its next time from the card, so these first times need only
-- be no later than due).

INSERT INTO ledger_accounts (id, account_id, livemode, code, currency, balance, allow_negative, created_at)
SELECT 'la_' || a.id || '_' || m.mode || '_fee_income_' || c.currency, a.id, m.live, 'fee_income', c.currency,
       0, FALSE, a.created_at
FROM accounts a
CROSS JOIN (SELECT 'test' AS mode, FALSE AS live UNION ALL SELECT 'live', TRUE) m
CROSS JOIN (SELECT 'USD' AS currency UNION ALL SELECT 'NGN') c;

INSERT INTO jobs (id, account_id, livemode, kind, subject, state, attempts, max_attempts, run_at, created_at, updated_at)
SELECT 'job_inactivity_' || id, account_id, livemode, 'card_inactivity', id, 'pending', 0, 10,
       created_at + 83 * 86400, created_at, created_at
FROM cards WHERE deleted_at IS NULL;

INSERT INTO jobs (id, account_id, livemode, kind, subject, state, attempts, max_attempts, run_at, created_at, updated_at)
SELECT 'job_fee_' || id, account_id, livemode, 'card_maintenance_fee', id, 'pending', 0, 10,
       created_at + 28 * 86400, created_at, created_at
FROM cards WHERE deleted_at IS NULL;
