-- Each queue's runners lease their own kinds of job: the due-jobs index
-- leads with the kind.
DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs (kind, state, run_at);
