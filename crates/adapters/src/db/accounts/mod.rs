//! Accounts and what hangs on them: the accounts and their API keys
//! (`ports::accounts::AccountStore`), idempotency keys
//! (`ports::idempotency`), rate limits (`ports::rate_limits`) and the
//! sandbox's test clocks (`ports::test_clocks`).

pub(in crate::db) mod idempotency;
mod rate_limits;
mod store;
mod test_clocks;

#[cfg(test)]
mod tests;
