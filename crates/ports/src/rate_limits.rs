use crate::StoreError;
use domain::ids::AccountId;
use domain::{Mode, Timestamp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permit {
    Granted,
    Denied { retry_after_secs: u64 },
}

/// Rate limits held in the database, so they hold across processes: one
/// row per (account, mode, action, subject) with the last accepted time.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait RateLimits: Send + Sync {
    async fn acquire(
        &self,
        account: &AccountId,
        mode: Mode,
        action: &str,
        subject: &str,
        window_secs: i64,
        now: Timestamp,
    ) -> Result<Permit, StoreError>;

    /// Gives back the grant [`RateLimits::acquire`] made at `granted_at`
    /// (the call it allowed decided nothing); a later grant stays.
    async fn release(
        &self,
        account: &AccountId,
        mode: Mode,
        action: &str,
        subject: &str,
        granted_at: Timestamp,
    ) -> Result<(), StoreError>;
}
