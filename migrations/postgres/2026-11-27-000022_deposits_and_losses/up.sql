-- Every account gets, per mode and currency, a deposits account (what
-- the operator credits to its issuing wallet with `issuing wallets
-- credit`) and a losses account (deleted cards' negative balances,
-- written off). Cards deleted before this migration keep theirs.
INSERT INTO ledger_accounts (id, account_id, livemode, code, currency, balance, created_at)
SELECT 'la_' || a.id || '_' || m.name || '_' || k.code || '_' || c.code, a.id, m.live, k.code, c.code, 0, a.created_at
FROM accounts a
CROSS JOIN (SELECT 'live' AS name, TRUE AS live UNION ALL SELECT 'test', FALSE) m
CROSS JOIN (SELECT 'deposits' AS code UNION ALL SELECT 'losses') k
CROSS JOIN (SELECT 'USD' AS code UNION ALL SELECT 'NGN') c;

-- The operator's credits, one per reference and account and mode: a
-- reference credited again moves nothing.
CREATE TABLE wallet_credits (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    reference TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount BIGINT NOT NULL,
    note TEXT NOT NULL,
    -- Checked at commit: the reference is taken before the entry is made.
    entry_id TEXT NOT NULL REFERENCES ledger_entries (id) DEFERRABLE INITIALLY DEFERRED,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, reference)
);
