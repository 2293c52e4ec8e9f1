use crate::StoreError;
use domain::Timestamp;
use domain::ids::AccountId;
use domain::{Amount, Currency, Mode};

#[derive(Debug, thiserror::Error)]
pub enum FundWalletError {
    #[error("the account would hold more than the most an issuing wallet may hold")]
    BalanceLimit,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalletBalances {
    pub usd: Amount,
    pub ngn: Amount,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait WalletStore: Send + Sync {
    /// Moves `amount` from the sandbox faucet into the issuing wallet in
    /// one balanced ledger entry; returns the new wallet balance. Refused
    /// when the account would then hold more than `max_wallet` in this
    /// currency and mode (the faucet is kept at `-max_wallet` or above:
    /// all the account's money came from it, so no wallet can pass it).
    async fn fund_from_faucet(
        &self,
        account: &AccountId,
        mode: Mode,
        currency: Currency,
        amount: Amount,
        max_wallet: Amount,
        now: Timestamp,
    ) -> Result<Amount, FundWalletError>;

    async fn balances(&self, account: &AccountId, mode: Mode) -> Result<WalletBalances, StoreError>;
}
