DROP TABLE reconciliation_repairs;
DROP TABLE reconciliation_runs;
