//! The account's issuing wallets: one per currency and mode.

mod credit_wallet;
mod fund_issuing_wallet;

pub use credit_wallet::{CreditRequest, Credited};
mod get_issuing_wallet_balance;
