use crate::StoreError;
use domain::ledger::Breach;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait LedgerAudit: Send + Sync {
    /// Every broken ledger invariant, across all accounts and modes.
    async fn breaches(&self) -> Result<Vec<Breach>, StoreError>;
}
