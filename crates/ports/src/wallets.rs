use crate::StoreError;
use domain::Timestamp;
use domain::ids::AccountId;
use domain::{Amount, Currency, Mode};

#[derive(Debug, thiserror::Error)]
pub enum FundWalletError {
    #[error("the account would hold more than the most an issuing wallet may hold")]
    BalanceLimit,
    #[error("no account has this id")]
    UnknownAccount,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalletBalances {
    pub usd: Amount,
    pub ngn: Amount,
}

impl WalletBalances {
    pub fn of(&self, currency: Currency) -> Amount {
        match currency {
            Currency::Usd => self.usd,
            Currency::Ngn => self.ngn,
        }
    }
}

/// An operator's credit of an issuing wallet: money the account holder
/// paid in, moved from the account's deposits ledger account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletCredit {
    pub account: AccountId,
    pub mode: Mode,
    pub currency: Currency,
    pub amount: Amount,
    /// The operator's reference (a bank transfer's, say): one credit each.
    pub reference: String,
    /// Why, for the record.
    pub note: String,
}

/// What a credit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreditOutcome {
    /// The money moved; the wallet now holds `balance`.
    Credited { balance: Amount },
    /// The reference was credited before (by this call's twin, or a retry):
    /// nothing moved. What that credit was.
    AlreadyCredited {
        currency: Currency,
        amount: Amount,
        created_at: Timestamp,
    },
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

    /// Moves the credit's amount from the account's deposits into its
    /// issuing wallet in one balanced ledger entry, and records the
    /// reference in the same transaction; a reference recorded before
    /// moves nothing. Refused when the wallet would then hold more than
    /// `max_wallet`.
    async fn credit_from_deposits(
        &self,
        credit: &WalletCredit,
        max_wallet: Amount,
        now: Timestamp,
    ) -> Result<CreditOutcome, FundWalletError>;

    async fn balances(&self, account: &AccountId, mode: Mode) -> Result<WalletBalances, StoreError>;
}
