//! The error of use cases that can fail only on their input, on the mode
//! of the key, or in storage.

use domain::{DomainError, ErrorKind, InvalidInput};
use ports::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error("this is a sandbox helper: use a test key on /v1/issuing/sandbox/...")]
    SandboxOnly,
    /// A funding would take the issuing wallet past the most it may hold.
    #[error("amount: the wallet would hold more than {0}, the most an issuing wallet may hold")]
    WalletFull(domain::Amount),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for RequestError {
    fn kind(&self) -> ErrorKind {
        match self {
            RequestError::Invalid(e) => e.kind(),
            RequestError::SandboxOnly => ErrorKind::Forbidden,
            RequestError::WalletFull(_) => ErrorKind::InvalidRequest,
            RequestError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            RequestError::Invalid(e) => e.code(),
            RequestError::SandboxOnly => "sandbox_only",
            RequestError::WalletFull(_) => "wallet_balance_limit",
            RequestError::Store(e) => e.code(),
        }
    }
}
