//! Traits the core needs from the outside world. Each carries
//! `#[cfg_attr(feature = "mocks", mockall::automock)]` so use cases can be
//! tested against mocks.

pub mod accounts;
pub mod card_network;
pub mod card_transactions;
pub mod cardholders;
pub mod cards;
pub mod clock;
pub mod events;
pub mod field_cipher;
pub mod health;
pub mod ids;
pub mod jobs;
pub mod kyc;
pub mod ledger;
pub mod merchants;
pub mod processor_auth;
pub mod rate_limits;
pub mod test_clocks;
pub mod vault;
pub mod wallets;
pub mod webhooks;

use domain::{DomainError, ErrorKind};

/// Storage failed in a way the caller cannot fix (connection lost, pool
/// exhausted, an unexpected database error). The detail is for logs only.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("storage failed: {0}")]
pub struct StoreError(pub String);

impl DomainError for StoreError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Unavailable
    }
    fn code(&self) -> &'static str {
        "storage_unavailable"
    }
}
