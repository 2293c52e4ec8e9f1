//! The card stores' tests, on SQLite and (with `TEST_DATABASE_URL`)
//! PostgreSQL, over the set-up in `crate::db::fixtures`.

mod store;
mod transactions;
