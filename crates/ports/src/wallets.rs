use crate::StoreError;
use domain::ids::AccountId;
use domain::{Amount, Currency, Mode};

#[derive(Debug, thiserror::Error)]
pub enum FundWalletError {
    #[error("the wallet balance would exceed the largest amount it can hold")]
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
    /// one balanced ledger entry; returns the new wallet balance.
    async fn fund_from_faucet(
        &self,
        account: &AccountId,
        mode: Mode,
        currency: Currency,
        amount: Amount,
        now: i64,
    ) -> Result<Amount, FundWalletError>;

    async fn balances(&self, account: &AccountId, mode: Mode) -> Result<WalletBalances, StoreError>;
}
