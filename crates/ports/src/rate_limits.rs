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
}
