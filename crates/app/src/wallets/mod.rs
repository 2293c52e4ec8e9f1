//! The account's issuing wallets: one per currency and mode.

mod fund_issuing_wallet;
mod get_issuing_wallet_balance;
