//! Black-box tests: the built `issuing` binary over HTTP and its CLI, as a
//! client and an operator use them, on SQLite and (with
//! `TEST_DATABASE_URL`) on PostgreSQL.

mod harness;
mod receiver;

mod accounts_and_keys;
mod at_rest;
mod authorizations;
mod browser;
mod card_fees;
mod card_transactions;
mod cardholders;
mod cards;
mod chaos;
mod cli;
mod connectors;
mod dashboard;
mod docs;
mod edge;
mod extreme_amounts;
mod group_commit;
mod idempotency;
mod integrations;
mod isolation;
mod lock_order;
mod logs;
mod metrics;
mod naira_cards;
mod processes;
mod reconciliation;
mod relay;
mod rewards;
mod spending_controls;
mod test_clock;
mod traces;
mod transactions;
mod utility;
mod wallet_credits;
mod wallets;
mod webhooks;
