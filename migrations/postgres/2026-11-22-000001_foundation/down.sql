DROP TABLE rate_limits;
DROP TABLE ledger_postings;
DROP TABLE ledger_entries;
DROP TABLE ledger_accounts;
DROP TABLE api_keys;
DROP TABLE accounts;
