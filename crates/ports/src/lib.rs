//! Traits the core needs from the outside world. Each carries
//! `#[cfg_attr(feature = "mocks", mockall::automock)]` so use cases can be
//! tested against mocks.

pub mod accounts;
pub mod card_network;
pub mod card_transactions;
pub mod cardholders;
pub mod cards;
pub mod clock;
pub mod console;
pub mod events;
pub mod field_cipher;
pub mod health;
pub mod idempotency;
pub mod ids;
pub mod jobs;
pub mod kyc;
pub mod kyc_images;
pub mod ledger;
pub mod merchants;
pub mod processor_auth;
pub mod processor_gateway;
pub mod rails;
pub mod rate_limits;
pub mod reconciliation;
pub mod rewards;
pub mod spending_controls;
pub mod test_clocks;
pub mod vault;
pub mod wallets;
pub mod webhooks;

use domain::{DomainError, ErrorKind};

/// Storage failed in a way the caller cannot fix (connection lost, pool
/// exhausted, an unexpected database error). It keeps its cause, typed,
/// for logs and for callers that look into it (`std::error::Error::source`
/// and `downcast_ref`); the API shows neither.
#[derive(Debug, Clone)]
pub struct StoreError {
    cause: std::sync::Arc<dyn std::error::Error + Send + Sync>,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "storage failed: {}", self.cause)
    }
}

/// Written by hand: a derived `source` would answer the `Arc` itself,
/// which hides the cause's type from `downcast_ref`.
impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.cause)
    }
}

impl StoreError {
    /// A failure with its cause: an error value, or a message where the
    /// store found something wrong itself (an unreadable row).
    pub fn new(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        StoreError {
            cause: cause.into().into(),
        }
    }

    /// The cause, for a caller that needs its type.
    pub fn cause(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.cause
    }

    /// Refused before anything was written: `queue` (a group committer's)
    /// is full.
    pub fn overloaded(queue: &'static str) -> Self {
        StoreError::new(Overloaded(queue))
    }

    fn is_overloaded(&self) -> bool {
        self.cause.is::<Overloaded>()
    }

    /// Withdrawn before anything was written: its deadline came while it
    /// waited for `queue` (a group committer's), and it never will be.
    pub fn deadline_missed(queue: &'static str) -> Self {
        StoreError::new(DeadlineMissed(queue))
    }

    /// Whether this is [`StoreError::deadline_missed`]: nothing was
    /// written, nor will be.
    pub fn is_deadline_missed(&self) -> bool {
        self.cause.is::<DeadlineMissed>()
    }
}

/// The cause of [`StoreError::deadline_missed`].
#[derive(Debug, thiserror::Error)]
#[error("the request's deadline came while it waited for the {0} queue: withdrawn, nothing written")]
pub struct DeadlineMissed(pub &'static str);

/// The cause of [`StoreError::overloaded`]: the queue that was full.
#[derive(Debug, thiserror::Error)]
#[error("the {0} queue was full")]
pub struct Overloaded(pub &'static str);

impl DomainError for StoreError {
    fn kind(&self) -> ErrorKind {
        match self.is_overloaded() || self.is_deadline_missed() {
            true => ErrorKind::Overloaded,
            false => ErrorKind::Unavailable,
        }
    }
    fn code(&self) -> &'static str {
        match (self.is_overloaded(), self.is_deadline_missed()) {
            (true, _) => "overloaded",
            (_, true) => "deadline_missed",
            _ => "storage_unavailable",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StoreError;
    use std::error::Error;

    #[test]
    fn a_store_error_keeps_its_typed_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let e = StoreError::new(io);
        assert_eq!(e.to_string(), "storage failed: refused");
        let source = e.source().expect("the cause is the source");
        let io = source.downcast_ref::<std::io::Error>().expect("typed");
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
        assert!(e.cause().is::<std::io::Error>());
    }
}
