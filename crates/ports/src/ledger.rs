use crate::StoreError;
use domain::ledger::Breach;
use domain::{Amount, Mode};

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait LedgerAudit: Send + Sync {
    /// Every broken ledger invariant, across all accounts and modes; a
    /// balance is checked against its kind's range with `max_wallet` the
    /// most an issuing wallet may hold.
    async fn breaches(&self, max_wallet: Amount) -> Result<Vec<Breach>, StoreError>;

    /// The sum of the balances of each kind of ledger account (the issuing
    /// wallets, the faucet, all cards, all cards' transit, ...) per mode
    /// and currency, across all accounts, ordered by mode, kind, currency.
    async fn totals(&self) -> Result<Vec<LedgerTotal>, StoreError>;
}

/// What [`LedgerAudit::totals`] reports for one kind and currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerTotal {
    pub mode: Mode,
    /// An [`domain::ledger::AccountKind`] as stored: `issuing_wallet`,
    /// `faucet`, `deposits`, `fee_income`, `card`, `card_transit`,
    /// `card_spend`, `losses`.
    pub kind: String,
    pub currency: String,
    /// Summed in `i128`: no number of accounts can make it wrap.
    pub balance: i128,
}
