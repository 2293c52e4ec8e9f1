use crate::StoreError;
use domain::rails::{InUse, Rails};
use domain::{Mode, Timestamp};

/// The rails each mode runs on, as recorded when first chosen
/// (docs/production.md, "Rails").
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait RailsStore: Send + Sync {
    /// `mode`'s rails: recorded as `rails` if none are yet, and what is
    /// recorded either way.
    async fn record_first(&self, mode: Mode, rails: &Rails, at: Timestamp) -> Result<Rails, StoreError>;

    /// Records `rails` for `mode` in place of what was, with a change of
    /// its own (who asked and why, `note`): the rails before, if any.
    async fn set(&self, mode: Mode, rails: &Rails, note: &str, at: Timestamp) -> Result<Option<Rails>, StoreError>;

    /// What `mode`'s rails serve now: its cards not deleted, its
    /// cardholders awaiting verification.
    async fn in_use(&self, mode: Mode) -> Result<InUse, StoreError>;

    /// What is recorded for each mode that has rails.
    async fn recorded(&self) -> Result<Vec<(Mode, Rails)>, StoreError>;

    /// Every change made by [`RailsStore::set`], oldest first.
    async fn changes(&self) -> Result<Vec<RailsChange>, StoreError>;
}

/// One change of a mode's rails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RailsChange {
    pub mode: Mode,
    pub before: Option<Rails>,
    pub after: Rails,
    pub note: String,
    pub at: Timestamp,
}
