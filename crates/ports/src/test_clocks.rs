use crate::StoreError;
use domain::ids::AccountId;

/// How far each account's sandbox runs ahead of real time. Held in the
/// database, so every process sees the same sandbox time.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait TestClocks: Send + Sync {
    async fn offset(&self, account: &AccountId) -> Result<i64, StoreError>;

    /// Moves the sandbox `secs` ahead and brings the account's pending
    /// sandbox jobs forward by as much; returns the new offset. `None`,
    /// changing nothing: the offset would pass `max_offset`.
    async fn advance(&self, account: &AccountId, secs: i64, max_offset: i64) -> Result<Option<i64>, StoreError>;
}
