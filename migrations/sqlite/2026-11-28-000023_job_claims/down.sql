DROP INDEX jobs_leased;
DROP INDEX jobs_webhooks_due;
DROP INDEX jobs_work_due;
CREATE INDEX jobs_due ON jobs (kind, state, run_at);
