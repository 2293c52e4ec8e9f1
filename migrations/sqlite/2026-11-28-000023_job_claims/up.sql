-- A claim reads only the due jobs it leases, in order, from the partial
-- index of its queue (webhook deliveries, or all other work), and the
-- jobs whose lease ran out from their own; none sorts the backlog. The
-- predicates are the literal ones the claim states (adapters::db::jobs).
DROP INDEX jobs_due;
CREATE INDEX jobs_work_due ON jobs (run_at) WHERE state = 'pending' AND kind <> 'deliver_webhook';
CREATE INDEX jobs_webhooks_due ON jobs (run_at) WHERE state = 'pending' AND kind = 'deliver_webhook';
CREATE INDEX jobs_leased ON jobs (locked_until) WHERE state = 'running';
