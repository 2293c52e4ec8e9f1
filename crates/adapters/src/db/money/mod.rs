//! The money core: every step that moves money, and the books it moves.
//! The group committer and its batch plans (`committer`, `batches`,
//! `unnest`), the money steps' shared pieces (`steps`), debits and holds,
//! reversals and refunds, reservations and settlements of fundings and
//! unloadings, the spending controls read under a debit's lock, the
//! wallets, the ledger and its audit, and reconciliation's records. It
//! implements, with the card stores, `ports::card_transactions` and
//! `ports::cards`' money steps, and `ports::wallets`, `ports::ledger` and
//! `ports::reconciliation`. Every step takes its locks in the order
//! docs/architecture.md states.

pub(in crate::db) mod batches;
pub(in crate::db) mod committer;
pub(in crate::db) mod debits;
pub(in crate::db) mod holds;
pub(in crate::db) mod ledger;
mod ledger_audit;
mod reconciliation;
pub(in crate::db) mod reservations;
pub(in crate::db) mod reversals;
pub(in crate::db) mod settlements;
pub(in crate::db) mod spending_controls;
pub(in crate::db) mod steps;
pub(in crate::db) mod unnest;
mod wallets;

#[cfg(test)]
mod tests;
