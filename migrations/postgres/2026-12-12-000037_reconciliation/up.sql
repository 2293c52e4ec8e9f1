-- Money reconciliation with a card processor that keeps books of its own
-- (`issuing reconcile transactions`, and the scheduled runs): each run,
-- and each difference it found with the repair it made (the audit
-- trail). A scheduled run's id names its mode and period, so one process
-- runs each. Service-wide: a run reads every account of its mode.
-- gateway_authorizations holds the id of every authorization the
-- processor's gateway asked about, and its card there, written before
-- its debit: a debit recorded here only is the processor's to reverse
-- only if it asked.
CREATE TABLE reconciliation_runs (
    id TEXT PRIMARY KEY,
    livemode BOOLEAN NOT NULL,
    since BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    finished_at BIGINT,
    compared BIGINT NOT NULL,
    differences BIGINT NOT NULL,
    repaired BIGINT NOT NULL,
    unresolved BIGINT NOT NULL,
    error TEXT
);
CREATE INDEX reconciliation_runs_by_mode ON reconciliation_runs (livemode, started_at);
CREATE TABLE reconciliation_repairs (
    id BIGSERIAL PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES reconciliation_runs (id),
    livemode BOOLEAN NOT NULL,
    authorization_id TEXT NOT NULL,
    class TEXT NOT NULL,
    repair TEXT NOT NULL,
    applied_as TEXT,
    account_id TEXT,
    card_id TEXT,
    amount BIGINT NOT NULL,
    outcome TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX reconciliation_repairs_by_authorization ON reconciliation_repairs (livemode, authorization_id);
CREATE TABLE gateway_authorizations (
    livemode BOOLEAN NOT NULL,
    reference TEXT NOT NULL,
    card TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (livemode, reference)
);
-- The live debits of processor-kept cards recorded before this table
-- (every one the gateway's or the processor endpoint's; a fee is none).
INSERT INTO gateway_authorizations (livemode, reference, card, created_at)
SELECT t.livemode, t.client_reference, p.processor_card_id, t.created_at
FROM card_transactions t
JOIN processor_cards p ON p.account_id = t.account_id AND p.card_id = t.card_id
WHERE t.livemode AND t.kind = 'debit' AND t.merchant_name <> 'Monthly maintenance fee'
ON CONFLICT DO NOTHING;
