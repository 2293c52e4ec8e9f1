DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs (state, run_at);
