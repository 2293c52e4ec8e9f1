//! The money core's tests, each on SQLite and (with `TEST_DATABASE_URL`)
//! PostgreSQL, over the set-up in `crate::db::fixtures`.

mod batch_plans;
mod debits;
mod ledger;
mod wallets;
